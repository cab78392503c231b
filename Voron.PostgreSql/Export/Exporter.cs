using System.Diagnostics;
using System.Text;
using Npgsql;
using NpgsqlTypes;
using Voron.Documents;

namespace Voron.PostgreSql.Export;

/// <summary><see cref="PostgreSqlExport.ExportAsync"/>: the collections one after the other, each in batches (PE1–PE5 in PostgreSqlExport.cs).</summary>
internal static class Exporter
{
    private sealed record Pending(string Id, byte[] Data, DateTimeOffset LastModified, long Version);

    public static async Task<PostgreSqlExportResult> RunAsync(DocumentStore store, string connectionString, PostgreSqlExportOptions options,
        CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(options.BatchSize, 1, nameof(options));
        var started = Stopwatch.GetTimestamp();
        var where = ConnectionStrings.Describe(connectionString);
        var statistics = store.GetStatistics();
        var collections = statistics.Collections.OrderBy(c => c.Name, StringComparer.Ordinal).ToList();
        if (options.Collection is { } only)
        {
            collections = collections.Where(c => c.Name == only).ToList();
            if (collections.Count == 0)
            {
                throw new ArgumentException(
                    $"The store has no collection '{only}' (names are case-sensitive). Its collections: " +
                    (statistics.Collections.Count == 0 ? "none." : string.Join(", ", statistics.Collections.Select(c => c.Name)) + "."), nameof(options));
            }
        }

        await using var connection = await Errors.OpenAsync(connectionString, where, cancellationToken).ConfigureAwait(false);
        var results = new List<PostgreSqlCollectionExport>();
        try
        {
            await ProgressTable.CreateAsync(connection, options.Schema, cancellationToken).ConfigureAwait(false);
            foreach (var collection in collections)
            {
                results.Add(await ExportCollectionAsync(store, connection, collection, statistics.TransactionId, options, cancellationToken).ConfigureAwait(false));
            }
        }
        catch (NpgsqlException e)
        {
            throw Errors.During(e, where);
        }

        return new PostgreSqlExportResult(results, Stopwatch.GetElapsedTime(started));
    }

    private static async Task<PostgreSqlCollectionExport> ExportCollectionAsync(DocumentStore store, NpgsqlConnection connection, CollectionStatistics collection,
        long storeTransaction, PostgreSqlExportOptions options, CancellationToken cancellationToken)
    {
        var schema = options.Schema;
        var table = options.TableName?.Invoke(collection.Name) ?? MartenTable.DefaultName(collection.Name);
        var qualified = $"{MartenTable.Quote(schema, "schema")}.{MartenTable.Quote(table, "table")}";
        var dotNetType = options.DotNetTypeName?.Invoke(collection.Name);

        var progress = await ProgressTable.ReadAsync(connection, schema, collection.Name, cancellationToken).ConfigureAwait(false);
        if (progress is not null && progress.Table != table)
        {
            throw new PostgreSqlExportException(
                $"The collection '{collection.Name}' was being exported to {MartenTable.Quote(progress.Table, "table")} in this schema, not {MartenTable.Quote(table, "table")}: " +
                $"resume with the same table names, or drop the schema {MartenTable.Quote(schema, "schema")} (or export into another) to start over.");
        }

        var exists = await MartenTable.ExistsAsync(connection, schema, table, cancellationToken).ConfigureAwait(false);
        if (exists)
        {
            var problems = await MartenTable.LayoutProblemsAsync(connection, schema, table, cancellationToken).ConfigureAwait(false);
            if (problems.Count > 0)
            {
                throw new PostgreSqlExportException(
                    $"The table {qualified} exists with another layout than Marten's: {string.Join("; ", problems)}. Nothing was written to it. " +
                    $"Drop it (DROP TABLE {qualified}), or export into another schema (PostgreSqlExportOptions.Schema, voron export --schema).");
            }
        }
        else if (progress is not null && progress.Rows > 0)
        {
            throw new PostgreSqlExportException(
                $"The table {qualified} is gone, but {ProgressTable.Qualified(schema)} says {progress.Rows:N0} rows of '{collection.Name}' were written to it. " +
                $"Delete that progress row (DELETE FROM {ProgressTable.Qualified(schema)} WHERE collection = '{collection.Name.Replace("'", "''", StringComparison.Ordinal)}') to export the collection again.");
        }

        await using (var start = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false))
        {
            if (!exists)
            {
                await using var create = new NpgsqlCommand(MartenTable.CreateSql(schema, table), connection, start);
                await create.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            }
            else if (progress is null)
            {
                var rows = await MartenTable.CountAsync(connection, schema, table, cancellationToken).ConfigureAwait(false);
                if (rows > 0)
                {
                    throw new PostgreSqlExportException(
                        $"The table {qualified} already holds {rows:N0} rows that this export did not write (it has no progress row in {ProgressTable.Qualified(schema)}): " +
                        $"writing into it could mix two stores' documents. Empty or drop it, or export into another schema (voron export --schema).");
                }
            }

            await ProgressTable.UpsertStartAsync(connection, schema, collection.Name, table, storeTransaction, cancellationToken).ConfigureAwait(false);
            await start.CommitAsync(cancellationToken).ConfigureAwait(false);
        }

        var resumed = progress?.Rows ?? 0;
        var lastId = progress?.LastId;
        var lastIdBytes = lastId is null ? null : Encoding.UTF8.GetBytes(lastId);
        long written = 0, inStore = 0;
        byte[]? previous = null;
        var batch = new List<Pending>(Math.Min(options.BatchSize, 100_000));
        var copy = MartenTable.CopySql(schema, table);
        options.Progress?.Report(new PostgreSqlExportProgress(collection.Name, qualified, resumed, collection.Documents));

        await using (var session = store.OpenSession())
        {
            await foreach (var raw in session.QueryRaw(collection.Name).AllowScan().WithCancellation(cancellationToken).ConfigureAwait(false))
            {
                using (raw)
                {
                    var idBytes = Encoding.UTF8.GetBytes(raw.Id);
                    if (previous is not null && previous.AsSpan().SequenceCompareTo(idBytes) >= 0)
                    {
                        throw new InvalidOperationException(
                            $"PE2: the store gave the document '{raw.Id}' of '{collection.Name}' after '{Encoding.UTF8.GetString(previous)}'; the export needs ids in ascending order to resume safely.");
                    }

                    previous = idBytes;
                    inStore++;
                    if (lastIdBytes is not null && idBytes.AsSpan().SequenceCompareTo(lastIdBytes) <= 0)
                    {
                        continue; // written by the run that was interrupted (PE2)
                    }

                    batch.Add(new Pending(raw.Id, DocumentBody.WithId(raw.Json.Span, raw.Id, options.IdProperty), raw.Metadata.LastModified, raw.Metadata.Version));
                }

                if (batch.Count >= options.BatchSize)
                {
                    written += await WriteBatchAsync(connection, copy, schema, collection.Name, batch, dotNetType, cancellationToken).ConfigureAwait(false);
                    options.Progress?.Report(new PostgreSqlExportProgress(collection.Name, qualified, resumed + written, collection.Documents));
                }
            }
        }

        if (batch.Count > 0)
        {
            written += await WriteBatchAsync(connection, copy, schema, collection.Name, batch, dotNetType, cancellationToken).ConfigureAwait(false);
            options.Progress?.Report(new PostgreSqlExportProgress(collection.Name, qualified, resumed + written, collection.Documents));
        }

        // PE4: the table, the progress row and the store agree.
        var counted = await MartenTable.CountAsync(connection, schema, table, cancellationToken).ConfigureAwait(false);
        var recorded = (await ProgressTable.ReadAsync(connection, schema, collection.Name, cancellationToken).ConfigureAwait(false))?.Rows ?? -1;
        if (counted != recorded || counted != inStore)
        {
            throw new PostgreSqlExportException(
                $"PE4: the row counts of '{collection.Name}' differ: {qualified} holds {counted:N0} rows, the export recorded {recorded:N0} written, and the store holds {inStore:N0} documents. " +
                (counted == recorded
                    ? "The store changed between the interrupted run and this one (documents deleted or added below the resume point). Drop the table and its progress row (or the schema) and export again from a store no one writes to."
                    : "Someone else wrote to or deleted from the table during the export. Drop the table and its progress row (or the schema) and export again."));
        }

        await ProgressTable.FinishAsync(connection, schema, collection.Name, cancellationToken).ConfigureAwait(false);
        return new PostgreSqlCollectionExport(collection.Name, qualified, written, resumed, counted);
    }

    /// <summary>One batch: COPY and the progress row in one transaction (PE1). Returns the rows written and empties <paramref name="batch"/>.</summary>
    private static async Task<long> WriteBatchAsync(NpgsqlConnection connection, string copy, string schema, string collection, List<Pending> batch, string? dotNetType,
        CancellationToken cancellationToken)
    {
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        await using (var importer = await connection.BeginBinaryImportAsync(copy, cancellationToken).ConfigureAwait(false))
        {
            foreach (var row in batch)
            {
                await importer.StartRowAsync(cancellationToken).ConfigureAwait(false);
                await importer.WriteAsync(row.Id, NpgsqlDbType.Varchar, cancellationToken).ConfigureAwait(false);
                await importer.WriteAsync(row.Data, NpgsqlDbType.Jsonb, cancellationToken).ConfigureAwait(false);
                await importer.WriteAsync(row.LastModified.ToUniversalTime(), NpgsqlDbType.TimestampTz, cancellationToken).ConfigureAwait(false);
                await importer.WriteAsync(MartenTable.Version(row.Version), NpgsqlDbType.Uuid, cancellationToken).ConfigureAwait(false);
                if (dotNetType is null)
                {
                    await importer.WriteNullAsync(cancellationToken).ConfigureAwait(false);
                }
                else
                {
                    await importer.WriteAsync(dotNetType, NpgsqlDbType.Varchar, cancellationToken).ConfigureAwait(false);
                }
            }

            await importer.CompleteAsync(cancellationToken).ConfigureAwait(false);
        }

        await ProgressTable.AdvanceAsync(connection, transaction, schema, collection, batch[^1].Id, batch.Count, cancellationToken).ConfigureAwait(false);
        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        var count = batch.Count;
        batch.Clear();
        return count;
    }
}
