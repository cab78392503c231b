using Voron.LoadTests.Capabilities.Documents;

namespace Voron.LoadTests.Experiments.Documents;

/// <summary>The engines the documents experiment can run, for its --engines option.</summary>
internal static class DocumentEngineNames
{
    public static readonly string[] All = [.. DocumentEngineCatalog.All.Select(k => k.Name)];
}
