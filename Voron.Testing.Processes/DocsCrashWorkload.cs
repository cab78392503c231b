using System.Globalization;
using System.Text;
using Microsoft.Data.Sqlite;
using Voron.Documents;

namespace Voron.Testing.Processes;

/// <summary>
/// The cross-door workload of the crash tests (Voron.Tests' DocsCrashScenario, and the
/// <c>sql-docs</c> child that DocsProcessKillTests kills): a <c>voron_docs</c> table <c>orders</c>
/// over the collection <c>Order</c> and a SQL table <c>order_rows(id, total)</c>. Each SQL
/// transaction of a writer changes one of the writer's own ids in both: inserts a row and its
/// document, updates both to a new total, or deletes both. So after any crash or kill:
/// <list type="bullet">
/// <item>every row has its document and every document its row, with the same total;</item>
/// <item>each writer's ids hold exactly the state after its first n transactions, for an n
///   no smaller than its acknowledged COMMITs and no larger than its attempted ones (the totals
///   are unique per transaction, so one n at most matches);</item>
/// <item>each database's count (a row and a document that every transaction of the database
///   increments, read from the transaction's own snapshot) equals the sum of those n of its
///   writers: the writers of one database contend on it, so their commits build on each other's
///   in-flight ones.</item>
/// </list>
/// A writer's operations are a pure function of the seed and the writer's number, so the parent
/// of a killed child replays them from the ACK lines alone.
/// </summary>
internal static class DocsCrashWorkload
{
    /// <summary>The document collection behind <c>orders</c>.</summary>
    internal const string Collection = "Order";

    /// <summary>Ids per writer: a writer revisits them, so updates and deletes follow inserts.</summary>
    internal const int KeysPerWriter = 4;

    /// <summary>Creates both tables (idempotent: a restarted child runs it on the recovered store).</summary>
    internal const string Schema =
        "CREATE VIRTUAL TABLE IF NOT EXISTS orders USING voron_docs(Order, total='$.total' INTEGER); " +
        "CREATE TABLE IF NOT EXISTS order_rows(id TEXT PRIMARY KEY, total INTEGER)";

    /// <summary>The setup of database <paramref name="db"/> (after <see cref="Schema"/>): its count row and document, 0; idempotent.</summary>
    internal static string CountSetup(int db) => string.Create(CultureInfo.InvariantCulture,
        $"INSERT OR IGNORE INTO order_rows VALUES ('{CountId(db)}', 0); INSERT OR IGNORE INTO orders(id, total) VALUES ('{CountId(db)}', 0)");

    /// <summary>The id of database <paramref name="db"/>'s count row and document.</summary>
    internal static string CountId(int db) => string.Create(CultureInfo.InvariantCulture, $"{Collection}/count-{db}");

    /// <summary>An index on the total, so that the store's integrity check compares index entries with documents too.</summary>
    internal static IndexDefinition Index => new(Collection, "ByTotal", "$.total");

    internal enum Kind
    {
        Insert,
        Update,
        Delete,
    }

    /// <summary>One transaction: <paramref name="Form"/> picks the statements (order of the doors, path column or body); <paramref name="Pad"/> the body's padding.</summary>
    internal readonly record struct Operation(int Writer, int Sequence, Kind Kind, string Id, long Total, int Form, int Pad)
    {
        public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"writer {Writer} #{Sequence}: {Kind} {Id} total {Total} (form {Form}, pad {Pad})");
    }

    /// <summary>The id of a writer's key <paramref name="key"/>: the document store's generated shape, <c>Order/&lt;n&gt;</c>, so the store's id counters are exercised and checked too.</summary>
    internal static string Id(int writer, int key) => string.Create(CultureInfo.InvariantCulture, $"{Collection}/{(writer * KeysPerWriter) + key + 1}");

    /// <summary>The writer an id of this workload belongs to, or -1 for any other id.</summary>
    internal static int WriterOf(string id) =>
        id.StartsWith(Collection + "/", StringComparison.Ordinal) &&
        long.TryParse(id.AsSpan(Collection.Length + 1), NumberStyles.None, CultureInfo.InvariantCulture, out var n) && n >= 1 && n <= int.MaxValue
            ? (int)((n - 1) / KeysPerWriter)
            : -1;

    /// <summary>The writer's operations, endless; the same for the same seed and writer.</summary>
    internal static IEnumerable<Operation> Operations(int seed, int writer)
    {
        var random = new Random(seed ^ ((writer + 1) * 104729));
        var present = new bool[KeysPerWriter];
        for (var sequence = 0; ; sequence++)
        {
            var key = random.Next(KeysPerWriter);
            var kind = !present[key] ? Kind.Insert : random.Next(4) == 0 ? Kind.Delete : Kind.Update;
            present[key] = kind != Kind.Delete;
            var pad = random.Next(10) == 0 ? random.Next(9000, 30000) : random.Next(200);
            yield return new Operation(writer, sequence, kind, Id(writer, key), Total(writer, sequence), random.Next(3), pad);
        }
    }

    /// <summary>The writer's ids and totals after its first <paramref name="count"/> transactions.</summary>
    internal static SortedDictionary<string, long> StateAfter(int seed, int writer, int count)
    {
        var state = new SortedDictionary<string, long>(StringComparer.Ordinal);
        foreach (var operation in Operations(seed, writer).Take(count))
        {
            if (operation.Kind == Kind.Delete)
            {
                state.Remove(operation.Id);
            }
            else
            {
                state[operation.Id] = operation.Total;
            }
        }

        return state;
    }

    /// <summary>
    /// Runs <paramref name="operation"/> as one SQL transaction (BEGIN IMMEDIATE ... COMMIT) on
    /// database <paramref name="db"/> that changes both doors, and increments the database's count; it is acknowledged when this returns. The forms vary which door is
    /// written first, path column against body writes, INSERT OR REPLACE, and reads of the
    /// transaction's own document write.
    /// </summary>
    internal static void Commit(SqliteConnection connection, int db, Operation operation)
    {
        using var transaction = connection.BeginTransaction();
        using var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = (operation.Kind, operation.Form) switch
        {
            (Kind.Insert, 0) => "INSERT INTO order_rows VALUES ($id, $total); INSERT INTO orders(id, body) VALUES ($id, $body)",
            (Kind.Insert, 1) => "INSERT INTO orders(id, total) VALUES ($id, $total); INSERT INTO order_rows VALUES ($id, $total)",
            (Kind.Insert, _) => "INSERT INTO orders(id, body) VALUES ($id, $body); INSERT INTO order_rows SELECT id, total FROM orders WHERE id = $id",
            (Kind.Update, 0) => "UPDATE order_rows SET total = $total WHERE id = $id; UPDATE orders SET total = $total WHERE id = $id",
            (Kind.Update, 1) => "UPDATE orders SET body = $body WHERE id = $id; UPDATE order_rows SET total = $total WHERE id = $id",
            (Kind.Update, _) => "INSERT OR REPLACE INTO orders(id, body) VALUES ($id, $body); UPDATE order_rows SET total = (SELECT total FROM orders WHERE id = $id) WHERE id = $id",
            (Kind.Delete, 0) => "DELETE FROM order_rows WHERE id = $id; DELETE FROM orders WHERE id = $id",
            (Kind.Delete, _) => "DELETE FROM orders WHERE id = $id; DELETE FROM order_rows WHERE id = $id",
            _ => throw new ArgumentOutOfRangeException(nameof(operation), operation, "no such kind"),
        };
        command.CommandText += "; UPDATE order_rows SET total = total + 1 WHERE id = $count; UPDATE orders SET total = total + 1 WHERE id = $count";
        command.Parameters.AddWithValue("$count", CountId(db));
        command.Parameters.AddWithValue("$id", operation.Id);
        command.Parameters.AddWithValue("$total", operation.Total);
        command.Parameters.AddWithValue("$body", Body(operation));
        command.ExecuteNonQuery();
        transaction.Commit();
    }

    /// <summary>The document's JSON: the total, who wrote it, and padding (every tenth on overflow pages).</summary>
    internal static string Body(Operation operation)
    {
        var random = new Random((int)(operation.Total & int.MaxValue));
        var pad = new StringBuilder(operation.Pad);
        for (var i = 0; i < operation.Pad; i++)
        {
            pad.Append((char)('a' + random.Next(26)));
        }

        return string.Create(CultureInfo.InvariantCulture, $$"""{"total":{{operation.Total}},"writer":{{operation.Writer}},"seq":{{operation.Sequence}},"pad":"{{pad}}"}""");
    }

    /// <summary>Unique per (writer, sequence), so a recovered total names the transaction that wrote it.</summary>
    private static long Total(int writer, int sequence) => ((writer + 1) * 10_000_000L) + sequence;
}
