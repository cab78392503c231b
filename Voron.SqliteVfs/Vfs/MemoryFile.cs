using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Vfs;

/// <summary>
/// A file that lives in memory and is gone when closed: SQLite's rollback journal (V11 in
/// Databases/DatabaseState.cs: it never reaches disk, the store's journal is the only one),
/// statement journals, temporary databases and sorter files.
/// </summary>
internal sealed class MemoryFile : VfsFile
{
    private const int ChunkSize = 64 * 1024;

    private readonly List<byte[]> _chunks = [];
    private long _size;

    public override long Size => _size;

    public override int Read(Span<byte> destination, long offset)
    {
        var available = (int)Math.Clamp(_size - offset, 0, destination.Length);
        for (var done = 0; done < available;)
        {
            var position = offset + done;
            var inChunk = (int)(position % ChunkSize);
            var count = Math.Min(available - done, ChunkSize - inChunk);
            var chunk = (int)(position / ChunkSize);
            var target = destination.Slice(done, count);
            if (chunk < _chunks.Count)
            {
                _chunks[chunk].AsSpan(inChunk, count).CopyTo(target);
            }
            else
            {
                target.Clear();
            }

            done += count;
        }

        if (available < destination.Length)
        {
            destination[available..].Clear();
            return SqliteConstants.IoErrShortRead;
        }

        return SqliteConstants.Ok;
    }

    public override void Write(ReadOnlySpan<byte> source, long offset)
    {
        for (var done = 0; done < source.Length;)
        {
            var position = offset + done;
            var chunk = (int)(position / ChunkSize);
            var inChunk = (int)(position % ChunkSize);
            var count = Math.Min(source.Length - done, ChunkSize - inChunk);
            while (_chunks.Count <= chunk)
            {
                _chunks.Add(new byte[ChunkSize]);
            }

            source.Slice(done, count).CopyTo(_chunks[chunk].AsSpan(inChunk));
            done += count;
        }

        _size = Math.Max(_size, offset + source.Length);
    }

    public override void Truncate(long size)
    {
        if (size >= _size)
        {
            _size = size;
            return;
        }

        _size = size;
        var keep = (int)((size + ChunkSize - 1) / ChunkSize);
        if (_chunks.Count > keep)
        {
            _chunks.RemoveRange(keep, _chunks.Count - keep);
        }

        if (size % ChunkSize != 0 && keep > 0 && keep <= _chunks.Count)
        {
            // Bytes past the new end must read as zeros if the file grows again.
            _chunks[keep - 1].AsSpan((int)(size % ChunkSize)).Clear();
        }
    }

    public override void Close() => _chunks.Clear();
}
