using System.Text.Json;
using Voron.Documents.Storage;

namespace Voron.Documents.Sessions;

internal sealed partial class DocumentSession
{
    public long LastTransactionId { get; private set; }

    public async Task SaveChangesAsync(CancellationToken cancellationToken = default)
    {
        using var scope = Enter();
        var (writes, entries) = CollectChanges();
        if (writes.Count == 0 && Ack == null)
        {
            return; // nothing changed: no transaction
        }

        if (store.IsReplica)
        {
            throw store.ReplicaRefusal($"SaveChangesAsync of {writes.Count} change(s)"); // I9: before any transaction
        }

        Ack?.ThrowIfUnusable();

        var operation = store.Telemetry.Start(DocumentsDiagnostics.Operations.SaveChanges, OnlyCollection(writes));
        WriteResult[] results;
        long transactionId;
        try
        {
            (results, transactionId) = await store.SubmitAsync(writes, Ack, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }

        operation.Complete(writes.Count);
        LastTransactionId = transactionId; // I10
        Ack?.Completed(); // SU1: committed with the documents; later saves are ordinary
        Ack = null;
        for (var i = 0; i < writes.Count; i++)
        {
            Saved(entries[i], writes[i], results[i]);
            if (writes[i].Collection is { } collection)
            {
                store.Telemetry.RecordWritten(collection, 1);
            }
        }
    }

    /// <summary>The one collection every write is in (a delete by id of an unknown document counts as null), or null when they differ.</summary>
    private static string? OnlyCollection(List<PreparedWrite> writes)
    {
        if (writes.Count == 0)
        {
            return null; // a subscription acknowledgement alone
        }

        var collection = writes[0].Collection;
        for (var i = 1; i < writes.Count; i++)
        {
            if (!string.Equals(writes[i].Collection, collection, StringComparison.Ordinal))
            {
                return null;
            }
        }

        return collection;
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
                writes.Add(WritePort.Delete(entry.Id, entry.IdBytes, entry.Collection, entry.CollectionBytes,
                    entry.ExpectedVersion ?? (concurrency ? known : null), entry.OriginalJson, entry.Version));
                entries.Add(entry);
                continue;
            }

            byte[] json;
            var textChecked = false;
            if (entry.RawJson != null)
            {
                json = entry.RawJson;
                textChecked = true; // StoreRaw validated the whole object (JV rules included)
            }
            else
            {
                var pending = PendingJson(entry);
                if (!pending.Changed && (entry.PendingExpiresTicks is not { } set || set == entry.ExpiresTicks))
                {
                    continue; // unchanged since loaded or saved (S1), its expiry too: not written
                }

                json = pending.Json;
                entry.PendingSnapshot = pending.Snapshot;
            }

            long? expected = entry.ExpectedVersion ??
                             (entry.Generated ? 0 : entry.State == EntryState.Tracked && concurrency ? known : entry.State == EntryState.Store && concurrency ? known : null);
            writes.Add(store.Writes.Store(entry.Id, entry.IdBytes, entry.Collection!, entry.CollectionBytes!, json, ExpiryOf(entry, json),
                expected, textChecked, entry.OriginalJson, entry.Version));
            entries.Add(entry);
        }

        return (writes, entries);
    }

    /// <summary>
    /// XE4. The expiry a save writes: the one the session set (SetExpiration, StoreRaw's
    ///      expiresAt), else the JSON field's (ExpirationOptions.JsonField) when one is configured,
    ///      else the one of the record the session loaded or last saved (none for a document it did
    ///      not load: Store and StoreRaw replace the whole document).
    /// </summary>
    private long ExpiryOf(SessionEntry entry, byte[] json) =>
        entry.PendingExpiresTicks ?? (store.ExpiryField is { } field ? field.Read(json, entry.Id) : entry.ExpiresTicks);

    /// <summary>
    /// What a typed entry's document would be if saved now: the entity's serialization (its id
    /// member checked against the document's id first, S3); when the entity was loaded, the stored
    /// properties its type does not model are kept (S2), and when its serialization equals the
    /// snapshot (S1) it is unchanged and the stored JSON stays as it is.
    /// </summary>
    private static (byte[] Json, byte[] Snapshot, bool Changed) PendingJson(SessionEntry entry)
    {
        var type = entry.Type!;
        if (type.IdProperty?.Set != null && type.GetId(entry.Entity!) is var member && member != entry.Id)
        {
            throw new InvalidOperationException(
                $"The {type.TypeInfo.Type.Name} tracked as document '{entry.Id}' has its id member changed to '{member ?? "null"}'; a document's id cannot change. " +
                $"To give it another id, store a copy under the new id and delete '{entry.Id}'; to keep it, set the member back.");
        }

        var typed = JsonSerializer.SerializeToUtf8Bytes(entry.Entity, type.TypeInfo);
        if (typed.Length < 2 || typed[0] != (byte)'{')
        {
            throw new InvalidOperationException($"{type.TypeInfo.Type.Name} did not serialize as a JSON object (a custom converter?); a document must be one.");
        }

        if (entry.State == EntryState.Tracked && entry.OriginalJson != null && !Changed(entry, typed))
        {
            return (entry.OriginalJson, typed, false);
        }

        // Stored (Store of an object the session did not load) replaces the document; a loaded one keeps what its type does not model.
        var json = entry.State == EntryState.Tracked && entry.OriginalJson != null ? UnknownProperties.Keep(typed, entry.OriginalJson, type) : typed;
        return (json, typed, true);
    }

    /// <summary>
    /// S1: whether a tracked entity's serialization <paramref name="typed"/> differs from its
    /// snapshot. A loaded entity's snapshot is taken here, once: the stored bytes themselves when
    /// the entity serializes to exactly them (no more work), else the stored JSON read into the
    /// type again, its id set (S3), and serialized.
    /// </summary>
    private static bool Changed(SessionEntry entry, byte[] typed)
    {
        if (entry.Snapshot == null)
        {
            if (typed.AsSpan().SequenceEqual(entry.OriginalJson))
            {
                return false;
            }

            var type = entry.Type!;
            var reread = JsonSerializer.Deserialize(entry.OriginalJson, type.TypeInfo)!;
            type.SetId(reread, entry.Id);
            entry.Snapshot = JsonSerializer.SerializeToUtf8Bytes(reread, type.TypeInfo);
        }

        return !typed.AsSpan().SequenceEqual(entry.Snapshot);
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
        entry.ExpiresTicks = DocumentRecord.BuiltExpiresTicks(write.Record);
        entry.PendingExpiresTicks = null;
        entry.Snapshot = entry.PendingSnapshot;
        entry.PendingSnapshot = null;
        entry.ExpectedVersion = null;
        entry.Generated = false;
    }
}
