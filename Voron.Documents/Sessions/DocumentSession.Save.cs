using System.Text.Json;
using Voron.Documents.Storage;

namespace Voron.Documents.Sessions;

internal sealed partial class DocumentSession
{
    public async Task SaveChangesAsync(CancellationToken cancellationToken = default)
    {
        using var scope = Enter();
        var (writes, entries) = CollectChanges();
        if (writes.Count == 0)
        {
            return; // nothing changed: no transaction
        }

        var collections = writes.Select(w => w.Collection).Distinct().ToList();
        var operation = store.Telemetry.Start(DocumentsDiagnostics.Operations.SaveChanges, collections.Count == 1 ? collections[0] : null);
        WriteResult[] results;
        try
        {
            results = await store.SubmitAsync(writes, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }

        operation.Complete(writes.Count);
        for (var i = 0; i < writes.Count; i++)
        {
            Saved(entries[i], writes[i], results[i]);
            if (writes[i].Collection is { } collection)
            {
                store.Telemetry.RecordWritten(collection, 1);
            }
        }
    }

    /// <summary>
    /// The session's changes as prepared writes: pending stores and deletes, and tracked entities
    /// whose JSON differs from what was loaded. Validation errors (limits, JSON) throw here, before
    /// any transaction: nothing is saved.
    /// </summary>
    private (List<PreparedWrite> Writes, List<SessionEntry> Entries) CollectChanges()
    {
        var writes = new List<PreparedWrite>();
        var entries = new List<SessionEntry>();
        var concurrency = store.Options.OptimisticConcurrency;
        foreach (var entry in _byId.Values)
        {
            var known = entry.Version > 0 ? entry.Version : (long?)null;
            if (entry.State == EntryState.Delete)
            {
                writes.Add(new PreparedWrite
                {
                    Id = entry.Id,
                    IdBytes = entry.IdBytes,
                    Collection = entry.Collection,
                    CollectionBytes = entry.CollectionBytes,
                    ExpectedVersion = entry.ExpectedVersion ?? (concurrency ? known : null),
                    HintJson = entry.OriginalJson,
                    HintVersion = entry.Version,
                });
                entries.Add(entry);
                continue;
            }

            var json = entry.RawJson ?? JsonSerializer.SerializeToUtf8Bytes(entry.Entity, entry.Type!.TypeInfo);
            if (entry.State == EntryState.Tracked && entry.OriginalJson != null && json.AsSpan().SequenceEqual(entry.OriginalJson))
            {
                continue; // unchanged: not written
            }

            CheckSize(json.Length, entry.Id);
            if (entry.RawJson == null && (json.Length < 2 || json[0] != (byte)'{'))
            {
                throw new InvalidOperationException($"{entry.Type!.TypeInfo.Type.Name} did not serialize as a JSON object (a custom converter?); a document must be one.");
            }

            long? expected = entry.ExpectedVersion ??
                             (entry.Generated ? 0 : entry.State == EntryState.Tracked && concurrency ? known : entry.State == EntryState.Store && concurrency ? known : null);
            writes.Add(new PreparedWrite
            {
                Id = entry.Id,
                IdBytes = entry.IdBytes,
                Collection = entry.Collection,
                CollectionBytes = entry.CollectionBytes,
                Record = DocumentRecord.Build(entry.CollectionBytes, json, store.Options.CompressionThresholdBytes),
                Json = json,
                ExpectedVersion = expected,
                HintJson = entry.OriginalJson,
                HintVersion = entry.Version,
                GeneratedNumber = DocumentNames.TryParseGenerated(entry.Id, entry.Collection!, out var n) ? n : 0,
            });
            entries.Add(entry);
        }

        return (writes, entries);
    }

    /// <summary>Brings an entry up to date after its save was acknowledged.</summary>
    private void Saved(SessionEntry entry, PreparedWrite write, WriteResult result)
    {
        if (write.IsDelete || entry.Entity == null)
        {
            Forget(entry); // deleted, or raw (raw documents are not tracked)
            return;
        }

        entry.State = EntryState.Tracked;
        entry.Version = result.Version;
        entry.Ticks = result.Ticks;
        entry.OriginalJson = write.Json;
        entry.ExpectedVersion = null;
        entry.Generated = false;
    }
}
