using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Databases;

internal sealed partial class DatabaseFile
{
    private const int BlockSize = PageFile.BlockSize;

    /// <summary>xRead from the connection's snapshot (V2, V4); zero-fills past the end with SQLITE_IOERR_SHORT_READ.</summary>
    public override int Read(Span<byte> destination, long offset)
    {
        if (_snapshot == null)
        {
            // SQLite reads the header at open, before it takes SHARED.
            using var transient = _database.TakeDurable();
            return ReadFrom(transient, destination, offset, track: false);
        }

        var result = ReadFrom(_snapshot, destination, offset, track: true);
        if (offset == 24 && destination.Length == 16)
        {
            if (_pagerCacheDistrusted)
            {
                // V17: SQLite's cache holds the pages of a commit that failed. Its copy of these
                // bytes may equal the state it reads now (its counter lagged the version's
                // sequence after V5), so answer bytes that differ from its copy: it drops the
                // cache and reads page 1 again (those bytes, at offset 0, are the real ones).
                _pagerCacheDistrusted = false;
                if (_pagerVersion != null && destination.SequenceEqual(_pagerVersion))
                {
                    destination[0] ^= 0xFF;
                }

                _pagerVersion = null;
            }

            // sqlite3PagerSharedLock compares these bytes with its copy and drops its cache when
            // they differ: so does the VFS's idea of that cache (V5).
            if (_pagerVersion == null || !destination.SequenceEqual(_pagerVersion))
            {
                _cachedBlocks.Clear();
            }
        }
        else if (offset == 0 && destination.Length >= 40)
        {
            _pagerVersion = destination[24..40].ToArray(); // the pager keeps page 1's bytes 24..39
        }

        return result;
    }

    private int ReadFrom(Snapshot snapshot, Span<byte> destination, long offset, bool track)
    {
        var length = _writes?.Length ?? snapshot.Length;
        var available = (int)Math.Clamp(length - offset, 0, destination.Length);
        for (var done = 0; done < available;)
        {
            var position = offset + done;
            var block = position / BlockSize;
            var inBlock = (int)(position % BlockSize);
            var count = Math.Min(available - done, BlockSize - inBlock);
            var target = destination.Slice(done, count);
            ReadBlockRange(snapshot, block, inBlock, target);
            if (track)
            {
                _cachedBlocks.Add(block);
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

    private void ReadBlockRange(Snapshot snapshot, long block, int inBlock, Span<byte> target)
    {
        if (_writes != null)
        {
            if (_writes.Blocks.TryGetValue(block, out var own))
            {
                own.AsSpan(inBlock, target.Length).CopyTo(target);
                return;
            }

            if (_writes.IsCut(block))
            {
                target.Clear();
                return;
            }
        }

        var bytes = snapshot.Find(block, out _); // V3: never waits
        if (bytes.IsEmpty)
        {
            target.Clear();
        }
        else
        {
            bytes.Slice(inBlock, target.Length).CopyTo(target);
        }
    }
}
