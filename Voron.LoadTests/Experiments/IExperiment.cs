namespace Voron.LoadTests.Experiments;

/// <summary>One command of the load-test program: runs, prints progress, returns its report.</summary>
internal interface IExperiment
{
    string Name { get; }

    string Description { get; }

    Task<Report> RunAsync(ExperimentContext context);
}
