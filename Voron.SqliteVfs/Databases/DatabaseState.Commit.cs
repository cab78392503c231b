using System.Buffers.Binary;

namespace Voron.SqliteVfs.Databases;

internal sealed partial class DatabaseState
{
    /// <summary>
    /// V7: makes <paramref name="writes"/>, built on <paramref name="snapshot"/> under the write
    /// lock, the newest version and submits it to the store's merger. Returns at once; the
    /// version's <see cref="DatabaseVersion.Durable"/> completes when it is durable or failed.
    /// When the store was idle the version's store transaction ran on this thread and
    /// <paramref name="write"/> is its journal write, which the caller runs once it released the
    /// database's write lock (merger MG4), so a lone connection's commit crosses no thread.
    /// </summary>
    /// <remarks>The caller has run <see cref="WriteSet.DropUnchanged"/> and found the set or <paramref name="documents"/> not empty.</remarks>
    public DatabaseVersion Submit(WriteSet writes, Snapshot snapshot, out Voron.Transactions.TransactionMerger.CallerWrite? write, IDocumentVersion? documents = null)
    {
        if (Environment.Failure is { } failure)
        {
            throw new StoreFailedException(Environment.Path, failure);
        }

        DatabaseVersion version;
        bool lone;
        lock (_sync)
        {
            var parent = _head?.Sequence ?? _durableSequence;
            if (snapshot.HeadSequence != parent || snapshot.Head is { IsFailed: true })
            {
                // V9: the state this transaction read failed while it was being built (V14: say why).
                var failed = snapshot.InFlight.FirstOrDefault(v => v.IsFailed || v.Failure != null);
                throw failed?.Cause is { } cause
                    ? new StaleCommitException(Name, failed.Sequence, cause)
                    : new StaleCommitException(Name, snapshot.HeadSequence, parent);
            }

            lone = _inFlight.Count == 0; // no commit of this database is being written
            var sequence = ++_lastSequence;
            if (writes.Blocks.TryGetValue(0, out var page1))
            {
                // V7: the change counter is the version's sequence, never reused (V9). SQLite's
                // counter lives at 24 and its copy ("version-valid-for") at 92, both big-endian.
                BinaryPrimitives.WriteUInt32BigEndian(page1.AsSpan(24), unchecked((uint)sequence));
                BinaryPrimitives.WriteUInt32BigEndian(page1.AsSpan(92), unchecked((uint)sequence));
            }

            version = new DatabaseVersion(sequence, parent, writes, snapshot.Length, writes.Block0, documents) { Parent = _head };
            documents?.Submitted(version, this);

            _inFlight.Add(version);
            _head = version;
            Publish();
            _history.Enqueue(version.Summary());
            while (_history.Count > HistoryLength)
            {
                _historyFloor = _history.Dequeue().Sequence;
            }
        }

        write = null;
        try
        {
            // The acknowledgement publishes the version on the thread that completes it: no
            // continuation hop between the journal's fdatasync and the waiting connection.
            // Only a lone writer runs the store transaction here (inside this database's write
            // lock): with a commit of this database still being written or connections waiting
            // for the lock, it is handed to the merger, so the lock is released at once and the
            // commits merge.
            lone = lone && WriteLock.Waiting == 0;
            _ = Environment.ExecuteDeferred(transaction => Apply(transaction, version), error => Completed(version, error), lone, out write);
        }
        catch (Exception e)
        {
            Completed(version, e); // refused at submission (a failed or disposed store)
        }

        return version;
    }

    /// <summary>V8, V13: the merged operation. May run more than once (merger M1); changes nothing outside the transaction.</summary>
    private void Apply(WriteTransaction transaction, DatabaseVersion version)
    {
        try
        {
            ApplyVersion(transaction, version);
        }
        catch (Exception e)
        {
            version.Failure = e; // a later version built on this one says why (V14)
            throw;
        }
    }

    private void ApplyVersion(WriteTransaction transaction, DatabaseVersion version)
    {
        var file = transaction.CreatePageFile(Name);
        if (file.Sequence != version.ParentSequence) // Sequence and SetSequence are internal: see Voron.Core.csproj
        {
            throw version.Parent?.Cause is { } cause
                ? new StaleCommitException(Name, version.ParentSequence, cause)
                : new StaleCommitException(Name, version.ParentSequence, file.Sequence);
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
        version.Parent = null;
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

        // WB2: the merged operation never reads the blocks again, and the version has left the
        // chain, so only snapshots that hold it can reach them.
        version.ReleaseStoreHold();
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
