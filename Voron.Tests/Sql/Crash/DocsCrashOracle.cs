using System.Text.Json;
using Voron.Testing.Processes;
using Voron.Tests.Sql;

namespace Voron.Tests.Sql.Crash;

/// <summary>
/// Checks a recovered store against the cross-door workload (<see cref="DocsCrashWorkload"/>): the
/// rows of <c>order_rows</c> (SQL), the documents of <c>Order</c> read through the document API
/// (not through the module, so a module that misreads cannot hide what the store holds), and the
/// same documents read through SQL's <c>orders</c>, which must agree with them. Shared by the
/// crash-simulator scenario and the SIGKILL loop.
/// </summary>
internal static class DocsCrashOracle
{
    /// <summary>
    /// Null when the store passes, else the first reason it does not. Writer w writes database
    /// <c>w % databases.Count</c>; <paramref name="range"/> gives how many of its transactions may
    /// be present (at least its acknowledged ones, at most its attempted ones); <paramref name="found"/>
    /// receives, for each writer, how many are.
    /// </summary>
    public static string? Check(DocumentStore documents, IReadOnlyList<SqliteConnection> databases, int seed, int writers, Func<int, (int Min, int Max)> range, Dictionary<int, int> found)
    {
        var rows = new Dictionary<string, (int Db, long? Total)>(StringComparer.Ordinal);
        for (var d = 0; d < databases.Count; d++)
        {
            foreach (var row in databases[d].Rows("SELECT id, total FROM order_rows"))
            {
                var id = (string)row[0]!;
                if (rows.TryGetValue(id, out var other))
                {
                    return $"id {id} has a row in database {other.Db} and in database {d}";
                }

                rows[id] = (d, row[1] as long?);
            }
        }

        var docs = ReadDocuments(documents);
        for (var d = 0; d < databases.Count; d++)
        {
            var throughSql = databases[d].Rows("SELECT id, total FROM orders").ToDictionary(r => (string)r[0]!, r => r[1] as long?, StringComparer.Ordinal);
            if (Difference(docs, throughSql) is { } difference)
            {
                return $"database {d}: SELECT FROM orders disagrees with the document API: {difference}";
            }
        }

        foreach (var id in rows.Keys.Union(docs.Keys).Order(StringComparer.Ordinal))
        {
            var hasRow = rows.TryGetValue(id, out var row);
            var hasDoc = docs.TryGetValue(id, out var docTotal);
            if (!hasRow || !hasDoc || row.Total == null || row.Total != docTotal)
            {
                return $"half a transaction: {id} has {(hasRow ? $"a row with total {Show(row.Total)}" : "no row")} and {(hasDoc ? $"a document with total {Show(docTotal)}" : "no document")}";
            }

            var writer = DocsCrashWorkload.WriterOf(id);
            var isCount = id == DocsCrashWorkload.CountId(row.Db);
            if (!isCount && (writer < 0 || writer >= writers || writer % databases.Count != row.Db))
            {
                return $"{id} (row in database {row.Db}) was written by no writer of this workload";
            }
        }

        for (var w = 0; w < writers; w++)
        {
            var recovered = new SortedDictionary<string, long>(StringComparer.Ordinal);
            foreach (var (id, total) in docs)
            {
                if (DocsCrashWorkload.WriterOf(id) == w)
                {
                    recovered[id] = total!.Value;
                }
            }

            var (min, max) = range(w);
            var n = Enumerable.Range(min, max - min + 1).Select(i => (int?)i).FirstOrDefault(i => DocsCrashWorkload.StateAfter(seed, w, i!.Value).SequenceEqual(recovered));
            if (n == null)
            {
                var (acknowledged, attempted) = (min, max);
                return $"writer {w} ({acknowledged} acknowledged, {attempted} attempted transactions) holds {Describe(recovered)}, " +
                    $"but after its {acknowledged} acknowledged transactions it must hold {Describe(DocsCrashWorkload.StateAfter(seed, w, acknowledged))}" +
                    (attempted > acknowledged ? $" (or {Describe(DocsCrashWorkload.StateAfter(seed, w, attempted))} with the unacknowledged one)" : "") +
                    $"; its last operations: {string.Join("; ", DocsCrashWorkload.Operations(seed, w).Take(attempted).TakeLast(3))}";
            }

            found[w] = n.Value;
        }

        for (var d = 0; d < databases.Count; d++)
        {
            var expected = found.Where(f => f.Key % databases.Count == d).Sum(f => f.Value);
            var count = rows.TryGetValue(DocsCrashWorkload.CountId(d), out var row) ? row.Total : null;
            if (count != expected && !(count == null && expected == 0))
            {
                return $"database {d}: its count row and document say {Show(count)}, but its writers' ids hold {expected} transactions";
            }
        }

        return null;
    }

    /// <summary>The collection of the document session writer that runs beside the SQL writers.</summary>
    public const string Notes = "Note";

    /// <summary>The id of the session writer's i-th save (1-based).</summary>
    public static string NoteId(int i) => $"{Notes}/{i}";

    /// <summary>Null when the notes are exactly Note/1..Note/n for an n from <paramref name="acknowledged"/> to <paramref name="attempted"/>.</summary>
    public static string? CheckNotes(DocumentStore documents, int acknowledged, int attempted)
    {
        using var session = documents.OpenSession();
        var list = session.QueryRaw(Notes).AllowScan().ToListAsync().GetAwaiter().GetResult();
        var ids = list.Select(d => d.Id).ToHashSet(StringComparer.Ordinal);
        list.ForEach(d => d.Dispose());
        var n = ids.Count;
        return n >= acknowledged && n <= attempted && Enumerable.Range(1, n).All(i => ids.Contains(NoteId(i)))
            ? null
            : $"the session writer's notes are {{{string.Join(", ", ids.Order(StringComparer.Ordinal))}}}, but {acknowledged} saves were acknowledged and {attempted} attempted";
    }

    /// <summary>PRAGMA integrity_check of each database, the document store's and the Voron store's integrity checks; null when all pass.</summary>
    public static string? CheckIntegrity(DocumentStore documents, IReadOnlyList<SqliteConnection> databases)
    {
        for (var d = 0; d < databases.Count; d++)
        {
            if (databases[d].IntegrityCheck() is var integrity && integrity != "ok")
            {
                return $"database {d}: integrity_check says {integrity}";
            }
        }

        documents.CheckIntegrity();
        documents.Environment.CheckIntegrity();
        return null;
    }

    /// <summary>Every document of the collection, by id, with its total (null when it has none or it is not an integer).</summary>
    public static Dictionary<string, long?> ReadDocuments(DocumentStore documents)
    {
        using var session = documents.OpenSession();
        var list = session.QueryRaw(DocsCrashWorkload.Collection).AllowScan().ToListAsync().GetAwaiter().GetResult();
        try
        {
            var result = new Dictionary<string, long?>(StringComparer.Ordinal);
            foreach (var document in list)
            {
                using var json = JsonDocument.Parse(document.Json);
                result[document.Id] = json.RootElement.TryGetProperty("total", out var total) && total.ValueKind == JsonValueKind.Number && total.TryGetInt64(out var value) ? value : null;
            }

            return result;
        }
        finally
        {
            list.ForEach(d => d.Dispose());
        }
    }

    private static string? Difference(Dictionary<string, long?> expected, Dictionary<string, long?> actual)
    {
        foreach (var id in expected.Keys.Union(actual.Keys).Order(StringComparer.Ordinal))
        {
            var inExpected = expected.TryGetValue(id, out var e);
            var inActual = actual.TryGetValue(id, out var a);
            if (inExpected != inActual || e != a)
            {
                return $"{id}: {(inExpected ? $"total {Show(e)}" : "absent")} in the store, {(inActual ? $"total {Show(a)}" : "absent")} through SQL";
            }
        }

        return null;
    }

    private static string Describe(SortedDictionary<string, long> state) =>
        state.Count == 0 ? "nothing" : "{" + string.Join(", ", state.Select(p => $"{p.Key}={p.Value}")) + "}";

    private static string Show(long? total) => total?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "NULL";
}
