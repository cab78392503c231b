using Voron.LoadTests.Capabilities.Documents;

namespace Voron.LoadTests.Experiments.Documents;

/// <summary>The engines the documents experiment can run, for its --engines option.</summary>
internal static class DocumentEngineNames
{
    /// <summary>The default engines: every unsealed one.</summary>
    public static readonly string[] All = [.. DocumentEngineCatalog.All.Select(k => k.Name)];

    /// <summary>Every engine --engines takes, the sealed variants after their twins: the order of the report's rows.</summary>
    public static readonly string[] WithSealed = [.. DocumentEngineCatalog.WithSealed.Select(k => k.Name)];
}
