namespace Voron.LoadTests.Engines.Documents;

/// <summary>The engines of the documents experiment, by their report names.</summary>
internal static class DocumentEngineCatalog
{
    public const string Voron = "voron";
    public const string Sqlite = "sqlite";
    public const string LiteDb = "litedb";
}
