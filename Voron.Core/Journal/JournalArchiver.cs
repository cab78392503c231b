using Voron.Platform;

namespace Voron.Journal;

// Journal archive (StorageEnvironmentOptions.JournalArchiveDirectory): a released journal file
// (J6) is copied to the archive instead of only being deleted, so that a full backup plus the
// archive can be replayed to any transaction since the backup (StorageEnvironment.RestoreAsync).
//
// JA1. a journal file is archived only when it is released: the data file is synced past every
//      record in it and a durable header says so (J6). So it is complete — the writer left it
//      (J4) — and the newest transactions are only in the live journal until their file is
//      released in turn.
// JA2. an archived file keeps its name and number (JournalFiles.PathOf) and its records' bytes
//      unchanged: the records' checksums are bound to the store id and the file number, so the
//      journal reader validates archived records exactly as it does live ones. Only the zeros
//      after the file's last record are not copied (the file's end reads as the log's end there).
// JA3. the archived file appears under its final name only complete and durable: copied to
//      "<name>.partial", FlushData, renamed, the archive directory synced; only then is the
//      original deleted. A crash leaves the original in the journal (archived again on the next
//      release) and at most a stale ".partial", which is written over.
// JA4. an archive file is never overwritten: one already there under the final name with the
//      same bytes (a crash between the rename and the delete) is accepted; different bytes fail
//      the release with an IOException (another store, or another life of this one, archives to
//      the same directory).
// JA11. the copy reads a file only up to where its log ends when the writer that left it says
//      where (JournalWriter.StartNewFile and size rotations record it): J10 makes everything after
//      that zeros, so the used length is the same as a scan of the whole file finds, and a timely
//      release (J14) does not read a mostly empty preallocated file to its end each time.

/// <summary>Copies released journal files into the archive directory (JA1..JA4 above).</summary>
internal static class JournalArchiver
{
    private const int ChunkSize = 1 << 20;

    /// <summary>The suffix of a file being archived (JA3).</summary>
    public const string PartialSuffix = ".partial";

    /// <summary>Archives journal file <paramref name="number"/> of <paramref name="journalDirectory"/> into
    /// <paramref name="archiveDirectory"/> (JA2..JA4). The caller deletes the original afterwards.
    /// <paramref name="logEnd"/>, when known, is where the file's log ends (JA11).</summary>
    public static void Archive(IFileSystem fileSystem, string journalDirectory, string archiveDirectory, long number, long? logEnd = null)
    {
        var source = JournalFiles.PathOf(journalDirectory, number);
        var target = JournalFiles.PathOf(archiveDirectory, number);
        fileSystem.CreateDirectory(archiveDirectory);
        var parent = Path.GetDirectoryName(archiveDirectory.TrimEnd(Path.DirectorySeparatorChar));
        if (!string.IsNullOrEmpty(parent))
        {
            fileSystem.SyncDirectory(parent); // the archive directory's own name is durable (F2) before a file in it counts as archived
        }

        using var original = fileSystem.Open(source, FileOpenMode.OpenExisting);
        var length = UsedLength(original, logEnd);
        if (fileSystem.FileExists(target))
        {
            using var existing = fileSystem.Open(target, FileOpenMode.OpenExisting);
            if (!SameBytes(original, length, existing))
            {
                throw new IOException(
                    $"JA4: the journal archive '{archiveDirectory}' already holds '{Path.GetFileName(target)}' with other bytes than the journal file " +
                    $"'{source}' being archived. Archive files are never overwritten: is another store (or an earlier life of this store) archiving " +
                    "to the same directory? Move that file away (or give this store its own archive directory) and reopen the store.");
            }

            return; // JA4: a crash came between the rename and the delete
        }

        var partial = target + PartialSuffix;
        fileSystem.DeleteFile(partial);
        using (var copy = fileSystem.Open(partial, FileOpenMode.CreateNew))
        {
            var buffer = new byte[ChunkSize];
            for (long at = 0; at < length; at += ChunkSize)
            {
                var count = (int)Math.Min(ChunkSize, length - at);
                ReadExactly(original, at, buffer.AsSpan(0, count));
                copy.Write(at, buffer.AsSpan(0, count));
            }

            copy.FlushData();
        }

        fileSystem.MoveFile(partial, target);
        fileSystem.SyncDirectory(archiveDirectory); // JA3: the name is durable before the original goes
    }

    /// <summary>JA2: the file's length up to the end of its last 4096-byte block holding anything
    /// but zeros (every record's first sector holds its header, so no record is cut); only the
    /// first <paramref name="logEnd"/> bytes are read when given (JA11: the rest are zeros).</summary>
    public static long UsedLength(IStorageFile file, long? logEnd = null)
    {
        var buffer = new byte[ChunkSize];
        long used = 0;
        var length = Math.Min(file.Length, logEnd ?? long.MaxValue);
        for (long at = 0; at < length; at += ChunkSize)
        {
            var count = (int)Math.Min(ChunkSize, length - at);
            ReadExactly(file, at, buffer.AsSpan(0, count));
            var last = buffer.AsSpan(0, count).LastIndexOfAnyExcept((byte)0);
            if (last >= 0)
            {
                used = Math.Min(length, JournalRecord.AlignUp(at + last + 1));
            }
        }

        return used;
    }

    private static bool SameBytes(IStorageFile original, long length, IStorageFile archived)
    {
        if (archived.Length != length)
        {
            return false;
        }

        var a = new byte[ChunkSize];
        var b = new byte[ChunkSize];
        for (long at = 0; at < length; at += ChunkSize)
        {
            var count = (int)Math.Min(ChunkSize, length - at);
            ReadExactly(original, at, a.AsSpan(0, count));
            ReadExactly(archived, at, b.AsSpan(0, count));
            if (!a.AsSpan(0, count).SequenceEqual(b.AsSpan(0, count)))
            {
                return false;
            }
        }

        return true;
    }

    private static void ReadExactly(IStorageFile file, long offset, Span<byte> destination)
    {
        var read = file.Read(offset, destination);
        if (read != destination.Length)
        {
            throw new IOException($"'{file.Path}': read {read} of {destination.Length} bytes at offset {offset} inside a {file.Length}-byte file");
        }
    }
}
