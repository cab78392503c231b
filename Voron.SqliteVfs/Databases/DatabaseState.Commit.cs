using System.Buffers.Binary;

namespace Voron.SqliteVfs.Databases;

internal sealed partial class DatabaseState
{
    /// <summary>
    /// V7: makes <paramref name="writes"/>, built on <paramref name="snapshot"/> under the write
    /// lock, the newest version and submits it to the store's merger. Returns at once; the
    /// version's <see cref="DatabaseVersion.Durable"/> completes when it is durable or failed.
    /// </summary>
    /// <remarks>The caller has run <see cref="WriteSet.DropUnchanged"/> and found the set or <paramref name="documents"/> not empty.</remarks>
    public DatabaseVersion Submit(WriteSet writes, Snapshot snapshot, Documents.DocumentCommit? documents = null)
    {
        if (Environment.Failure is { } failure)
        {
            throw new StoreFailedException(Environment.Path, failure);
        }

        DatabaseVersion version;
        lock (_sync)
        {
            var parent = _head?.Sequence ?? _durableSequence;
            if (snapshot.HeadSequence != parent || snapshot.Head is { IsFailed: true })
            {
                // V9: the state this transaction read failed while it was being built.
                throw new StaleCommitException(Name, snapshot.HeadSequence, parent);
            }

            var sequence = ++_lastSequence;
            if (writes.Blocks.TryGetValue(0, out var page1))
            {
                // V7: the change counter is the version's sequence, never reused (V9). SQLite's
                // counter lives at 24 and its copy ("version-valid-for") at 92, both big-endian.
                BinaryPrimitives.WriteUInt32BigEndian(page1.AsSpan(24), unchecked((uint)sequence));
                BinaryPrimitives.WriteUInt32BigEndian(page1.AsSpan(92), unchecked((uint)sequence));
            }

            version = new DatabaseVersion(sequence, parent, writes, snapshot.Length, writes.Block0, documents);
            _inFlight.Add(version);
            _head = version;
            Publish();
            _history.Enqueue(version.Summary());
            while (_history.Count > HistoryLength)
            {
                _historyFloor = _history.Dequeue().Sequence;
            }
        }

        Task durable;
        try
        {
            durable = Environment.ExecuteAsync(transaction => Apply(transaction, version));
        }
        catch (Exception e)
        {
            durable = Task.FromException(e); // refused at submission (a failed or disposed store)
        }

        durable.ContinueWith(task => Completed(version, task.Exception?.InnerException), CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        return version;
    }

    /// <summary>V8, V13: the merged operation. May run more than once (merger M1); changes nothing outside the transaction.</summary>
    private void Apply(WriteTransaction transaction, DatabaseVersion version)
    {
        var file = transaction.CreatePageFile(Name);
        if (file.Sequence != version.ParentSequence) // Sequence and SetSequence are internal: see Voron.Core.csproj
        {
            throw new StaleCommitException(Name, version.ParentSequence, file.Sequence);
        }

        if (version.MinLength < file.Length)
        {
            file.SetLength(version.MinLength);
        }

        foreach (var (block, bytes) in version.Blocks)
        {
            file.Write(block * PageFile.BlockSize, bytes);
        }

        file.SetLength(version.Length);
        file.SetSequence(version.Sequence);
        version.Documents?.Apply(transaction); // V13, V14: the same store transaction as the pages
    }

    /// <summary>The version's store commit finished: publish it as durable, or drop it and every later version (V9).</summary>
    private void Completed(DatabaseVersion version, Exception? error)
    {
        List<DatabaseVersion>? dropped = null;
        lock (_sync)
        {
            var index = _inFlight.IndexOf(version);
            if (error == null)
            {
                _durableSequence = Math.Max(_durableSequence, version.Sequence);
                if (index >= 0)
                {
                    _inFlight.RemoveAt(index);
                }

                if (_head == version)
                {
                    _head = null;
                }

                Publish();
            }
            else if (index >= 0)
            {
                dropped = _inFlight.GetRange(index, _inFlight.Count - index);
                _inFlight.RemoveRange(index, dropped.Count);
                _head = _inFlight.Count > 0 ? _inFlight[^1] : null;
                Publish();
                var kept = _history.Where(v => !dropped.Exists(d => d.Sequence == v.Sequence)).ToList();
                _history.Clear();
                foreach (var v in kept)
                {
                    _history.Enqueue(v);
                }
            }
        }

        version.Complete(error);
        if (dropped != null)
        {
            foreach (var later in dropped)
            {
                if (later != version)
                {
                    later.Complete(new StaleCommitException(Name, version.Sequence, error!));
                }
            }
        }
    }
}
