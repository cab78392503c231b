using System.CommandLine;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// An experiment as the command line knows it: its name and description (from
/// <see cref="Default"/>), the options of its own that it accepts after its name, and how to make
/// it from a parsed command line. Registered in <see cref="ExperimentCatalog.All"/> (a diagnostic: in
/// Voron.Diagnostics' catalog).
/// </summary>
/// <param name="Default">The experiment with its default settings; <see cref="ExperimentCatalog.Find"/> returns it.</param>
/// <param name="Options">Options only this experiment takes (the common ones are CommandLine's).</param>
/// <param name="Create">Makes the experiment from the parsed command line (its options' values).</param>
/// <param name="Writes">Whether it writes stores, and so takes <c>--flush-delay</c> (<see cref="ExperimentCatalog.FlushDelay"/>).</param>
internal sealed record ExperimentDefinition(IExperiment Default, IReadOnlyList<Option> Options, Func<ParseResult, IExperiment> Create, bool Writes = false)
{
    public string Name => Default.Name;

    public string Description => Default.Description;
}
