namespace Voron.SqliteVfs.Databases;

/// <summary>
/// A connection's view of its database (V2): a store read transaction and the in-flight
/// versions submitted after the state it holds, newest last. Used by one connection at a time.
/// It holds each of those versions (WB2) from when it is built until it is disposed, or until
/// <see cref="With"/> hands its holds and its store transaction to the snapshot it makes.
/// </summary>
internal sealed class Snapshot : IDisposable
{
    private readonly ReadTransaction _store;
    private readonly PageFile? _file;
    private readonly long _fileLength; // read once: a read transaction's file never changes
    private readonly DatabaseVersion[] _versions;
    private bool _released; // disposed, or handed over by With

    /// <summary>A snapshot that owns <paramref name="store"/> and one hold (WB2) on each of <paramref name="versions"/>, taken by the caller.</summary>
    public Snapshot(ReadTransaction store, PageFile? file, DatabaseVersion[] versions, long headSequence)
    {
        _store = store;
        _file = file;
        _fileLength = file?.Length ?? 0;
        _versions = versions;
        HeadSequence = headSequence;
    }

    /// <summary>The store read transaction under the snapshot (SD3: documents are read from it too).</summary>
    public ReadTransaction Store => _store;

    /// <summary>The in-flight versions this snapshot sees, oldest first.</summary>
    public IReadOnlyList<DatabaseVersion> InFlight => _versions;

    /// <summary>The sequence of the newest version this snapshot sees.</summary>
    public long HeadSequence { get; }

    /// <summary>The newest in-flight version seen, or null when the snapshot is all durable.</summary>
    public DatabaseVersion? Head => _versions.Length == 0 ? null : _versions[^1];

    public long Length => _versions.Length == 0 ? _fileLength : _versions[^1].Length;

    /// <summary>
    /// Finds block <paramref name="block"/>: its bytes (empty = zeros) and the in-flight version
    /// they come from (null = the durable store).
    /// </summary>
    public ReadOnlySpan<byte> Find(long block, out DatabaseVersion? from)
    {
        for (var i = _versions.Length - 1; i >= 0; i--)
        {
            var version = _versions[i];
            if (version.Blocks.TryGetValue(block, out var bytes))
            {
                from = version;
                return bytes;
            }

            if (version.IsCut(block))
            {
                from = version;
                return default;
            }
        }

        from = null;
        // Internal PageFile.TryGetBlock, not the public Read: every SQLite page read lands here, and
        // the span lets the caller copy the block's bytes once, straight into SQLite's buffer.
        return _file != null && _file.TryGetBlock(block, out var stored) ? stored : default;
    }

    /// <summary>Copies block <paramref name="block"/> (zeros for a hole) into <paramref name="destination"/>.</summary>
    public bool ReadBlock(long block, byte[] destination)
    {
        var bytes = Find(block, out _);
        if (bytes.IsEmpty)
        {
            Array.Clear(destination);
            return false;
        }

        bytes.CopyTo(destination);
        return true;
    }

    /// <summary>
    /// This snapshot with the connection's own commit on top (V2: a writer sees what it wrote).
    /// Takes over this snapshot's store transaction and holds, and the hold the version keeps for
    /// its submitter (WB2): this snapshot must not be used or disposed afterwards.
    /// </summary>
    public Snapshot With(DatabaseVersion own)
    {
        ObjectDisposedException.ThrowIf(_released, this);
        _released = true;
        return new(_store, _file, [.. _versions, own], own.Sequence);
    }

    /// <summary>Releases the store snapshot and the versions' holds (WB2); again, or after <see cref="With"/>, does nothing.</summary>
    public void Dispose()
    {
        if (_released)
        {
            return;
        }

        _released = true;
        foreach (var version in _versions)
        {
            version.Release();
        }

        _store.Dispose();
    }
}
