namespace Voron.LoadTests.Experiments;

/// <summary>
/// A suite of several experiments run one after another under one name (<c>ops</c>: backup,
/// tools, recovery). Each part keeps its own report (reports/&lt;part&gt;.json, .md, .html), its
/// own data directory and its own disk: a part that does not write durably through the simulated
/// disk (<see cref="Part.Writes"/>) runs on the real one, so no report claims a delay its stores
/// never saw. <c>--parts</c> runs some of them.
/// </summary>
internal sealed class Suite(string name, string description, IReadOnlyList<Suite.Part> parts) : IExperiment
{
    /// <summary>One experiment of a suite, and whether its stores take the simulated flush delay.</summary>
    internal sealed record Part(IExperiment Experiment, bool Writes);

    public string Name => name;

    public string Description => description;

    public IReadOnlyList<Part> Parts => parts;

    /// <summary>The parts' names, for <c>--parts</c>.</summary>
    public string[] PartNames => [.. parts.Select(p => p.Experiment.Name)];

    /// <summary>This suite with only the parts named (all when <paramref name="names"/> is null).</summary>
    public Suite Only(string[]? names) =>
        names is null or { Length: 0 } ? this : new Suite(name, description, [.. parts.Where(p => names.Contains(p.Experiment.Name, StringComparer.OrdinalIgnoreCase))]);

    /// <summary>A suite's parts report one by one (<see cref="CommandLine"/>); run alone, it returns its last part's report.</summary>
    public async Task<Report> RunAsync(ExperimentContext context)
    {
        Report? last = null;
        foreach (var part in parts)
        {
            last = await part.Experiment.RunAsync(context).ConfigureAwait(false);
        }

        return last ?? throw new InvalidOperationException($"the suite '{name}' has no parts to run: name some of {string.Join(", ", PartNames)} with --parts.");
    }
}
