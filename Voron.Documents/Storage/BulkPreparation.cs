using System.Runtime.ExceptionServices;
using Voron.Documents.Indexing;
using Voron.Documents.Serialization;

namespace Voron.Documents.Storage;

/// <summary>
/// The part of a bulk batch's preparation that needs no order: each JSON checked at the door (JV1,
/// JV2 in Serialization/JsonValidation.cs) and each write's index entries computed with one catalog
/// (I2), in parallel chunks of the batch.
/// </summary>
/// <remarks>
/// BI2. The failure a prepared batch reports is the one a sequential pass would: first every
///      JSON is checked, then entries are computed; each chunk remembers its first failure of each
///      kind, and the batch throws the earliest check failure in input order, else the earliest
///      entry failure.
/// </remarks>
internal static class BulkPreparation
{
    /// <summary>Writes a chunk holds at least: below this a chunk's start-up outweighs its work.</summary>
    private const int MinChunk = 256;

    public static void Run(IndexCatalog catalog, PreparedWrite[] writes)
    {
        var chunks = Math.Clamp(writes.Length / MinChunk, 1, System.Environment.ProcessorCount);
        var failures = new Exception?[chunks, 2];
        if (chunks == 1)
        {
            RunChunk(catalog, writes, 0, writes.Length, failures, 0);
        }
        else
        {
            Parallel.For(0, chunks, c => RunChunk(catalog, writes, (int)((long)writes.Length * c / chunks), (int)((long)writes.Length * (c + 1) / chunks), failures, c));
        }

        for (var kind = 0; kind < 2; kind++)
        {
            for (var c = 0; c < chunks; c++)
            {
                if (failures[c, kind] is { } failure)
                {
                    ExceptionDispatchInfo.Throw(failure); // BI2: chunks are in input order
                }
            }
        }
    }

    private static void RunChunk(IndexCatalog catalog, PreparedWrite[] writes, int from, int to, Exception?[,] failures, int chunk)
    {
        for (var i = from; i < to; i++)
        {
            try
            {
                if (writes[i].Record != null)
                {
                    JsonValidation.ValidateText(JsonOf(writes[i]), writes[i].Id);
                }
            }
            catch (Exception e)
            {
                failures[chunk, 0] = e;
                return; // the batch fails; nothing later in the chunk can be reported before this
            }
        }

        var extractors = new Dictionary<string, JsonPathExtractor>(StringComparer.Ordinal);
        for (var i = from; i < to; i++)
        {
            var write = writes[i];
            try
            {
                write.NewEntries = null;
                write.HintEntries = null;
                if (write.Collection == null || write.Record == null || catalog.For(write.Collection) is not { } indexes)
                {
                    continue;
                }

                if (!extractors.TryGetValue(write.Collection, out var extractor))
                {
                    extractor = indexes.CreateExtractor();
                    extractors[write.Collection] = extractor;
                }

                write.NewEntries = indexes.ComputeEntries(JsonOf(write), write.IdBytes, extractor);
            }
            catch (Exception e)
            {
                failures[chunk, 1] = e;
                return;
            }
        }
    }

    /// <summary>The write's JSON: beside its record when the record is compressed, else in the record (BI4).</summary>
    private static ReadOnlySpan<byte> JsonOf(PreparedWrite write)
    {
        if (write.Json != null)
        {
            return write.Json;
        }

        // A record this process built (DocumentRecord.Build): not yet stamped, so not one ReadHeader takes (DR5).
        var record = write.Record!;
        if ((record[DocumentRecord.FlagsOffset] & DocumentRecord.Compressed) != 0)
        {
            throw new InvalidOperationException($"Bulk write '{write.Id}' has a compressed record and no JSON beside it."); // BI4
        }

        return record.AsSpan(DocumentRecord.BuiltBodyOffset(record));
    }
}
