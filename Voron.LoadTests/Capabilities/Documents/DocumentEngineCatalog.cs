namespace Voron.LoadTests.Capabilities.Documents;

/// <summary>The engines of the documents experiment, by their report names.</summary>
internal static class DocumentEngineCatalog
{
    public const string Voron = "voron";

    /// <summary>The engine floor: Voron.Core's merger putting the bytes a document save stores (<see cref="VoronKvDocumentEngine"/>).</summary>
    public const string VoronKv = "voron-kv";

    public const string Sqlite = "sqlite";
    public const string LiteDb = "litedb";
}
