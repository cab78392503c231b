using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Diagnostics;
using Voron.Documents.Querying;
using Voron.Documents.Serialization;
using Voron.Documents.Storage;

namespace Voron.Documents.Sessions;

internal sealed partial class DocumentSession
{
    public IDocumentQuery<T> Query<T>(JsonTypeInfo<T> typeInfo) where T : class
    {
        ArgumentNullException.ThrowIfNull(typeInfo);
        ThrowIfDisposed();
        var type = DocumentType.For(typeInfo);
        return new DocumentQuery<T>(this, typeInfo, type, new QuerySpec(type.Collection, type.CollectionBytes));
    }

    public IRawDocumentQuery QueryRaw(string collection)
    {
        ThrowIfDisposed();
        return new RawDocumentQuery(this, new QuerySpec(collection, DocumentNames.CollectionBytes(collection)));
    }

    internal DocumentStore Owner => store;

    /// <summary>Counts the results of <paramref name="spec"/> without reading their JSON (typed and raw queries alike).</summary>
    internal int CountQuery(QuerySpec spec, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        using var run = OpenQuery(spec, readsJson: false);
        try
        {
            var count = 0;
            while (run.Cursor.MoveNext())
            {
                count++;
            }

            run.Returned = count;
            return count;
        }
        catch (Exception e)
        {
            run.Fail(e);
            throw;
        }
    }

    /// <summary>Plans a query against the snapshot it will read (I6) and opens its cursor; the caller disposes both.</summary>
    internal QueryRun OpenQuery(QuerySpec spec, bool readsJson = true)
    {
        ThrowIfDisposed();
        var operation = store.Telemetry.Start(DocumentsDiagnostics.Operations.Query, spec.Collection);
        ReadTransaction? read = null;
        try
        {
            read = store.Environment.BeginRead();
            var plan = QueryPlanner.Plan(spec, store.Catalogs.For(read), store.IsReplica);
            return new QueryRun(read, new QueryCursor(read, spec, plan, store.Path, readsJson, store.NowTicks), operation);
        }
        catch (Exception e)
        {
            read?.Dispose();
            operation.Fail(e);
            throw;
        }
    }

    /// <summary>
    /// The entity for the cursor's current document, whose JSON is <paramref name="json"/> (valid only
    /// during the call): the tracked object when the session has one, else deserialized and tracked.
    /// </summary>
    internal T Materialize<T>(QueryCursor cursor, ReadOnlySpan<byte> json, DocumentType type, JsonTypeInfo<T> typeInfo) where T : class
    {
        using var scope = Enter();
        var id = cursor.Id;
        if (_byId.TryGetValue(id, out var known))
        {
            if (known.Entity is T tracked)
            {
                return tracked;
            }

            var untracked = Deserialize(json, typeInfo, id, type.Collection);
            type.SetId(untracked, id); // S3, though the session tracks this id otherwise (a pending raw store or delete)
            return untracked;
        }

        var entity = Deserialize(json, typeInfo, id, type.Collection);
        Track(Loaded(id, cursor.IdBytes.ToArray(), type, entity, json, cursor.Header.Version, cursor.Header.Ticks, cursor.Header.ExpiresTicks));
        return entity;
    }

    /// <summary>Makes room in the session's maps for <paramref name="results"/> more tracked documents, so a query's results do not grow them step by step.</summary>
    internal void ReserveTracking(int results)
    {
        _byId.EnsureCapacity(_byId.Count + results);
        _byEntity.EnsureCapacity(_byEntity.Count + results);
    }

    /// <summary>
    /// The entities of a batch of results, in order, as <see cref="Materialize{T}"/> would give them
    /// one by one: tracked objects returned as they are, the others deserialized, tracked in order.
    /// The deserializations run before any tracking, on up to two threads (<see cref="ParallelWork"/>;
    /// JsonTypeInfo is thread-safe); a failure is thrown at its own result, after the ones before it
    /// were tracked, as the one-by-one order would.
    /// </summary>
    internal void MaterializeAll<T>(ResultBatch batch, DocumentType type, JsonTypeInfo<T> typeInfo, List<T> into) where T : class
    {
        using var scope = Enter();
        var count = batch.Count;
        var known = new SessionEntry?[count];
        var outcomes = new object?[count];
        for (var i = 0; i < count; i++)
        {
            _byId.TryGetValue(batch.Id(i), out known[i]);
        }

        ParallelWork.Run(count, i =>
        {
            if (known[i]?.Entity is T)
            {
                return known[i]!;
            }

            try
            {
                return Deserialize(batch.Json(i), typeInfo, batch.Id(i), type.Collection);
            }
            catch (Exception e)
            {
                return System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(e);
            }
        }, outcomes);

        for (var i = 0; i < count; i++)
        {
            if (outcomes[i] is System.Runtime.ExceptionServices.ExceptionDispatchInfo error)
            {
                error.Throw();
            }

            var id = batch.Id(i);
            if (known[i] is { } entry)
            {
                if (entry.Entity is T tracked)
                {
                    into.Add(tracked);
                    continue;
                }

                var untracked = (T)outcomes[i]!;
                type.SetId(untracked, id); // S3, though the session tracks this id otherwise (a pending raw store or delete)
                into.Add(untracked);
                continue;
            }

            var entity = (T)outcomes[i]!;
            Track(Loaded(id, batch.IdBytes(i), type, entity, batch.Json(i), batch.Version(i), batch.Ticks(i), batch.ExpiresTicks(i)));
            into.Add(entity);
        }
    }
}
