using System.Text.Json;
using Microsoft.Data.Sqlite;
using Voron.LoadTests.Stores.Sqlite;
using Voron.LoadTests.Experiments.Documents;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.Diagnostics.Engines.SqlDocs;

/// <summary>
/// What every engine of the <c>sqldocs</c> experiment holds, the same in each: profile documents
/// 0..N-1 (<see cref="ProfileDataSet"/>, ~1 KiB of JSON), indexes on <c>$.city</c> and
/// <c>$.age</c>, and a SQL table <c>purchases(id INTEGER PRIMARY KEY, profile_id TEXT, amount
/// REAL)</c> whose row r (1..N) refers to a pseudo-random profile.
/// </summary>
internal static class SqlDocsData
{
    public const string CityIndex = "profiles_by_city";
    public const string AgeIndex = "profiles_by_age";

    public const string CreatePurchases = "CREATE TABLE IF NOT EXISTS purchases(id INTEGER PRIMARY KEY, profile_id TEXT NOT NULL, amount REAL NOT NULL)";

    public const string InsertPurchase = "INSERT INTO purchases(profile_id, amount) VALUES ($profile, $amount)";

    /// <summary>Purchase rows per transaction of the preload.</summary>
    private const int Batch = 10_000;

    /// <summary>The profile purchase <paramref name="row"/> (1..N) refers to.</summary>
    public static string ProfileOf(long row, long documents) =>
        ProfileDataSet.Id((long)((unchecked((ulong)row * 0x9E3779B97F4A7C15UL) >> 11) % (ulong)documents));

    /// <summary>A profile as the SQL engines store it: System.Text.Json with the source-generated metadata (as Voron.Documents writes it).</summary>
    public static string Json(Profile profile) => JsonSerializer.Serialize(profile, ProfileJson.Default.Profile);

    public static Profile? Parse(string json) => JsonSerializer.Deserialize(json, ProfileJson.Default.Profile);

    /// <summary>Creates the purchases table and fills it with rows 1..<paramref name="documents"/>.</summary>
    public static void PreloadPurchases(SqliteConnection connection, long documents)
    {
        Execute(connection, CreatePurchases);
        using var insert = connection.CreateCommand();
        insert.CommandText = "INSERT INTO purchases(id, profile_id, amount) VALUES ($id, $profile, $amount)";
        var id = insert.Parameters.Add("$id", SqliteType.Integer);
        var profile = insert.Parameters.Add("$profile", SqliteType.Text);
        var amount = insert.Parameters.Add("$amount", SqliteType.Real);
        for (long first = 1; first <= documents; first += Batch)
        {
            using var transaction = connection.BeginTransaction();
            insert.Transaction = transaction;
            for (var row = first; row < first + Batch && row <= documents; row++)
            {
                id.Value = row;
                profile.Value = ProfileOf(row, documents);
                amount.Value = Amount(row);
                insert.ExecuteNonQuery();
            }

            transaction.Commit();
        }
    }

    public static double Amount(long seed) => (seed % 100_000) / 100.0;

    public static void Execute(SqliteConnection connection, string sql) => SqliteCommands.Execute(connection, sql);

    public static SqliteCommand Prepare(SqliteConnection connection, string sql, params (string Name, SqliteType Type)[] parameters) =>
        SqliteCommands.Prepare(connection, sql, parameters);

    /// <summary>EXPLAIN QUERY PLAN of <paramref name="sql"/> with <paramref name="values"/> bound, its detail lines joined by "; ".</summary>
    public static string Plan(SqliteConnection connection, string sql, params (string Name, object Value)[] values) =>
        SqliteCommands.Plan(connection, sql, values);
}
