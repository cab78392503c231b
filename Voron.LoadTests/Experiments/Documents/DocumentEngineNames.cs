using Voron.LoadTests.Capabilities.Documents;

namespace Voron.LoadTests.Experiments.Documents;

/// <summary>The engines the documents experiment can run, for its --engines option.</summary>
internal static class DocumentEngineNames
{
    public static readonly string[] All = [DocumentEngineCatalog.Voron, DocumentEngineCatalog.VoronKv, DocumentEngineCatalog.Sqlite, DocumentEngineCatalog.LiteDb];
}
