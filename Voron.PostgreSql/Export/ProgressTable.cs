using Npgsql;

namespace Voron.PostgreSql.Export;

/// <summary>
/// The export's own table in the target schema, one row per collection: the table it goes to,
/// the last id written and the rows written, updated in the transaction of each batch (PE1).
/// A schema holds the export of one store: a second store exported into the same schema would
/// be taken for a resumption of the first.
/// <code>
/// COLUMN             TYPE         MEANING
/// collection         text PK      the store's collection
/// table_name         text         the table its documents go to
/// last_id            text NULL    the greatest id written (store order, PE2); NULL before the first batch
/// rows               bigint       rows written into table_name, all runs together
/// finished           boolean      a run went through the whole collection and checked the counts (PE4)
/// store_transaction  bigint       the store's last committed transaction when the latest run began
/// updated            timestamptz  when the row last changed
/// </code>
/// </summary>
internal static class ProgressTable
{
    public const string Name = "voron_export_progress";

    /// <summary>A collection's row.</summary>
    public sealed record Row(string Table, string? LastId, long Rows, bool Finished, long StoreTransaction);

    public static async Task CreateAsync(NpgsqlConnection connection, string schema, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(
            $"""
             CREATE SCHEMA IF NOT EXISTS {MartenTable.Quote(schema, "schema")};
             CREATE TABLE IF NOT EXISTS {Qualified(schema)} (
                 collection text PRIMARY KEY,
                 table_name text NOT NULL,
                 last_id text,
                 rows bigint NOT NULL,
                 finished boolean NOT NULL,
                 store_transaction bigint NOT NULL,
                 updated timestamptz NOT NULL DEFAULT now()
             )
             """, connection);
        await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }

    public static async Task<Row?> ReadAsync(NpgsqlConnection connection, string schema, string collection, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(
            $"SELECT table_name, last_id, rows, finished, store_transaction FROM {Qualified(schema)} WHERE collection = $1", connection);
        command.Parameters.Add(new NpgsqlParameter { Value = collection });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        return new Row(reader.GetString(0), reader.IsDBNull(1) ? null : reader.GetString(1), reader.GetInt64(2), reader.GetBoolean(3), reader.GetInt64(4));
    }

    /// <summary>Starts a collection (its first run) or records the transaction a resumed run reads.</summary>
    public static async Task UpsertStartAsync(NpgsqlConnection connection, string schema, string collection, string table, long storeTransaction,
        CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(
            $"""
             INSERT INTO {Qualified(schema)} (collection, table_name, last_id, rows, finished, store_transaction) VALUES ($1, $2, NULL, 0, false, $3)
             ON CONFLICT (collection) DO UPDATE SET finished = false, store_transaction = excluded.store_transaction, updated = now()
             """, connection);
        command.Parameters.Add(new NpgsqlParameter { Value = collection });
        command.Parameters.Add(new NpgsqlParameter { Value = table });
        command.Parameters.Add(new NpgsqlParameter { Value = storeTransaction });
        await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Counts a batch (in the batch's transaction, PE1).</summary>
    public static async Task AdvanceAsync(NpgsqlConnection connection, NpgsqlTransaction transaction, string schema, string collection, string lastId, long rows,
        CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(
            $"UPDATE {Qualified(schema)} SET last_id = $1, rows = rows + $2, updated = now() WHERE collection = $3", connection, transaction);
        command.Parameters.Add(new NpgsqlParameter { Value = lastId });
        command.Parameters.Add(new NpgsqlParameter { Value = rows });
        command.Parameters.Add(new NpgsqlParameter { Value = collection });
        if (await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false) != 1)
        {
            throw new PostgreSqlExportException(
                $"The progress row of the collection '{collection}' in {Qualified(schema)} disappeared during the export (another export, or someone deleting it). " +
                "Run one export at a time into a schema; drop the schema and export again to start over.");
        }
    }

    public static async Task FinishAsync(NpgsqlConnection connection, string schema, string collection, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand($"UPDATE {Qualified(schema)} SET finished = true, updated = now() WHERE collection = $1", connection);
        command.Parameters.Add(new NpgsqlParameter { Value = collection });
        await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }

    public static string Qualified(string schema) => $"{MartenTable.Quote(schema, "schema")}.{Name}";
}
