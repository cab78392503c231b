using Microsoft.Data.Sqlite;
using Voron.Diagnostics.Experiments.SqlDocs;

namespace Voron.Diagnostics.Engines.SqlDocs;

/// <summary>The engines of the <c>sqldocs</c> experiment, by name, and what they share.</summary>
internal static class SqlDocsEngines
{
    /// <summary>Documents through SQL: a <c>voron_docs</c> virtual table on <c>Vfs=&lt;name&gt;</c> with the store bound (UseDocuments).</summary>
    public const string VoronSqlDocs = "voron-sql-docs";

    /// <summary>The same documents through Voron.Documents' sessions and queries.</summary>
    public const string VoronDocuments = "voron-documents";

    /// <summary>Stock SQLite, JSON text in a table.</summary>
    public const string Sqlite = "sqlite";

    public static readonly string[] All = [VoronSqlDocs, VoronDocuments, Sqlite];

    /// <summary>Opens engine <paramref name="name"/> on an empty <paramref name="directory"/> and loads <paramref name="documents"/> profiles and purchases.</summary>
    public static async Task<ISqlDocsEngine> CreateAsync(string name, string directory, long documents) => name switch
    {
        VoronSqlDocs => await VoronSqlDocsEngine.CreateAsync(directory, documents).ConfigureAwait(false),
        VoronDocuments => await VoronDocumentApiEngine.CreateAsync(directory, documents).ConfigureAwait(false),
        Sqlite => SqliteJsonEngine.Create(directory, documents),
        _ => throw new ArgumentException($"unknown sqldocs engine '{name}'", nameof(name)),
    };

    /// <summary>EXPLAIN QUERY PLAN of each read workload's statement.</summary>
    public static IReadOnlyDictionary<string, string> Plans(SqliteConnection connection, SqlDocsStatements sql) => new Dictionary<string, string>
    {
        [SqlDocsWorkloads.Lookup] = SqlDocsData.Plan(connection, sql.Lookup, ("$id", "profiles/1")),
        [SqlDocsWorkloads.QueryEqual] = SqlDocsData.Plan(connection, sql.QueryEqual, ("$city", "city-001"), ("$take", 20)),
        [SqlDocsWorkloads.QueryRange] = SqlDocsData.Plan(connection, sql.QueryRange, ("$min", 30), ("$max", 33), ("$take", 20)),
        [SqlDocsWorkloads.Join] = SqlDocsData.Plan(connection, sql.Join, ("$first", 1), ("$end", 21)),
    };
}
