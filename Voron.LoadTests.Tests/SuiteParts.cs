namespace Voron.LoadTests.Tests;

/// <summary>The experiment of type <typeparamref name="T"/> among a suite's parts (ExperimentCatalog's documents, sql, ops).</summary>
internal static class SuiteParts
{
    public static T Part<T>(IExperiment? suite) where T : IExperiment =>
        Assert.IsType<T>(Assert.Single(Assert.IsType<Suite>(suite).Parts, p => p.Experiment is T).Experiment);
}
