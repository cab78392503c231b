using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Databases;

internal sealed partial class DatabaseFile
{
    /// <summary>xWrite: into the write set (only the write-lock holder writes; SQLite asks for EXCLUSIVE first).</summary>
    public override void Write(ReadOnlySpan<byte> source, long offset)
    {
        var writes = RequireWriteSet();
        for (var done = 0; done < source.Length;)
        {
            var position = offset + done;
            var block = position / BlockSize;
            var inBlock = (int)(position % BlockSize);
            var count = Math.Min(source.Length - done, BlockSize - inBlock);
            var buffer = writes.Modify(block, whole: count == BlockSize, _snapshot!.ReadBlock);
            source.Slice(done, count).CopyTo(buffer.AsSpan(inBlock));
            _cachedBlocks.Add(block);
            done += count;
        }

        writes.Extend(offset + source.Length);
        if (offset == 0 && source.Length >= 40)
        {
            _pagerVersion = source[24..40].ToArray(); // what SQLite now holds; V7 stamps the store's copy
        }
    }

    /// <summary>xTruncate: SQLite shrinks the file at the end of a commit that freed pages (VACUUM, auto_vacuum).</summary>
    public override void Truncate(long size) => RequireWriteSet().Truncate(size, _snapshot!.ReadBlock);

    private WriteSet RequireWriteSet() =>
        _writes ?? throw (OnReadReplica
            ? ReplicaRefusal() // V18: SQLITE_READONLY
            : new InvalidOperationException($"SQLite database '{Name}': a write without the write lock (lock level {_level})."));
}
