namespace Voron.LoadTests.Experiments;

/// <summary>Every experiment the program knows, in the order <c>list</c> prints them.</summary>
internal static class ExperimentCatalog
{
    internal const string Default = "machine";

    internal static IReadOnlyList<IExperiment> All { get; } =
    [
        new MachineExperiment(),
        new KvExperiment(),
        new MergeExperiment(),
        new JournalExperiment(),
        new SectionsExperiment(),
        new SqlExperiment(),
    ];

    internal static IExperiment? Find(string name) =>
        All.FirstOrDefault(e => string.Equals(e.Name, name, StringComparison.OrdinalIgnoreCase));
}
