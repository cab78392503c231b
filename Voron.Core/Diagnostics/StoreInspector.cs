using System.Globalization;
using Voron.Header;
using Voron.Journal;
using Voron.Platform;

namespace Voron.Diagnostics;

// Inspect: what a store directory holds, read without opening the store.
//
//   SI1. nothing is written, created, truncated, recovered or locked: every file is read through
//        the file system it is given, which for a real directory is Platform/ReadOnly (read-only
//        opens that share everything; every mutating call throws), and the lock is only probed
//        (Platform/LockFileProbe.cs), never taken.
//   SI2. the facts come from the engine's own readers, so a look and an open agree: the newest
//        valid header copy (HeaderFile.ReadNewest), the data file's identity page
//        (DataFileIdentity.Validate), the journal scan recovery runs (JournalReader.Recover, the
//        same validation, replaying into nothing), the journal files' states (JournalFileStates).
//   SI3. LastTransactionId is the transaction an open would end its recovery with under the
//        default JournalTailRecovery (DiscardTornWrite): the header's LastSyncedTxId plus the
//        valid records after the header's position. The scan runs first under Strict; what Strict
//        refuses and the default accepts is a torn tail, which an open discards: a Problem. What
//        the default refuses too is damage an open would refuse (CorruptionException): a Problem,
//        and LastTransactionId is the last valid record before it.
//   SI4. it throws only when there is nothing to describe: a missing directory
//        (DirectoryNotFoundException), no store files (InvalidDataException), no valid header copy
//        (CorruptionException), a format this build does not read (FormatVersionException). Every
//        other finding is a sentence in Problems.
//   SI5. ClosedCleanly iff the lock is not held, the journal holds nothing past the header (no
//        valid record, no torn or damaged one) and no scratch file is left: the last opener's
//        close synced everything, and an open has nothing to recover.
//
// A look at a store that is open elsewhere reads files its process is writing: it sees some
// prefix of the journal (a record being written reads as a torn tail) and may find a journal file
// gone between the listing and the read (a Problem). It never disturbs that process.

/// <summary>Builds a <see cref="StoreInfo"/> from a store's files; see the notes above.</summary>
internal static partial class StoreInspector
{
    /// <param name="fileSystem">Reads the store's files (SI1: a read-only one for real directories).</param>
    /// <param name="directory">The store's directory.</param>
    /// <param name="probeLock">Tells the lock's state and record from the lock file's path.</param>
    public static StoreInfo Inspect(IFileSystem fileSystem, string directory, Func<string, LockFileProbe.Result> probeLock)
    {
        var layout = new StoreLayout(directory);
        var problems = new List<string>();
        if (!fileSystem.FileExists(layout.HeaderFile(1)) && !fileSystem.FileExists(layout.HeaderFile(2)) && !fileSystem.FileExists(layout.DataFile))
        {
            throw new InvalidDataException(
                $"'{directory}' is not a Voron store: it holds none of headers.one, headers.two and voron.data. Pass the directory the store was opened with.");
        }

        var header = ReadHeader(fileSystem, layout, problems);
        CheckDataFile(fileSystem, layout, header, problems);
        var probe = probeLock(layout.LockFile);
        if (probe.Problem != null)
        {
            problems.Add(probe.Problem);
        }

        var journal = header.IsFormat1
            ? Format1Journal(header, problems)
            : ScanJournal(fileSystem, layout, header, problems);
        var numbers = JournalFiles.List(fileSystem, layout.JournalDirectory);
        long? active = probe.Lock.IsHeld && numbers.Count > 0 ? numbers[^1] : null; // the writer appends to its newest file
        var journalFiles = JournalFileStates.List(fileSystem, layout.JournalDirectory, numbers, active, header.JournalFile);
        var files = ListFiles(fileSystem, layout, probe);
        CheckCompaction(fileSystem, layout, problems);
        var scratch = fileSystem.FileExists(layout.ScratchFile);
        var closedCleanly = !probe.Lock.IsHeld && journal.Transactions == 0 && journal.Clean && !scratch; // SI5

        return new StoreInfo(directory, header.FormatVersion, Constants.PageSize,
            header.StoreId.ToString("x16", CultureInfo.InvariantCulture), header.Revision, header.LastSyncedTxId,
            journal.LastTransactionId, journal.Transactions, journalFiles, files, closedCleanly, probe.Lock, problems)
        {
            // Read without the key: a sealed record is judged on its header and trailers, not opened (SL8).
            SealAlgorithm = header.Seal?.Algorithm.ToString(),
        };
    }

    /// <summary>The newest valid header copy (HF rules), and a problem for a copy that is damaged rather than never written.</summary>
    private static HeaderRecord ReadHeader(IFileSystem fileSystem, StoreLayout layout, List<string> problems)
    {
        var header = HeaderFile.ReadNewest(fileSystem, layout, out var present); // FormatVersionException, CorruptionException (HF3..HF7)
        if (header is not { } newest)
        {
            var what = present == 0 ? "both header files (headers.one, headers.two) are missing" : "neither header copy (headers.one, headers.two) is valid (rules HF1/HF2)";
            throw new CorruptionException(present == 0 ? layout.DataFile : layout.HeaderFile(1), 0,
                $"{what}, so nothing says how far the data file is synced or where the journal starts. Restore the store from a backup");
        }

        foreach (var path in new[] { layout.HeaderFile(1), layout.HeaderFile(2) })
        {
            if (!fileSystem.FileExists(path))
            {
                problems.Add($"The header copy '{Path.GetFileName(path)}' is missing; the other one is used (the next header write creates it again).");
                continue;
            }

            using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
            var bytes = new byte[HeaderFile.Size];
            var read = file.Read(0, bytes);
            if (HeaderFile.Decode(bytes.AsSpan(0, read), path) == null && bytes.AsSpan(0, read).ContainsAnyExcept((byte)0))
            {
                // All zeros is a second copy not written yet (a new store reserves its space).
                problems.Add($"The header copy '{Path.GetFileName(path)}' is torn or damaged (rules HF1/HF2); the other copy, revision {newest.Revision}, is used.");
            }
        }

        return newest;
    }

    /// <summary>The data file's identity page (its format version: FormatVersionException); damage or a missing file is a problem.</summary>
    private static void CheckDataFile(IFileSystem fileSystem, StoreLayout layout, HeaderRecord header, List<string> problems)
    {
        if (!fileSystem.FileExists(layout.DataFile))
        {
            if (header.LastSyncedTxId != 0)
            {
                problems.Add($"The data file voron.data is missing, but the header says transaction {header.LastSyncedTxId} was synced to it: the store cannot be opened. Restore it from a backup.");
            }

            return;
        }

        using var file = fileSystem.Open(layout.DataFile, FileOpenMode.OpenExisting);
        var page = new byte[Constants.PageSize];
        var read = file.Read(0, page);
        try
        {
            DataFileIdentity.Validate(page.AsSpan(0, read), layout.DataFile);
        }
        catch (CorruptionException e)
        {
            problems.Add($"The data file's identity page is damaged: {e.Message}");
        }
    }

    /// <summary>Every file of the store directory with its length; the lock file's length comes from its probe (SI1: it is not opened here).</summary>
    private static List<StoreFileInfo> ListFiles(IFileSystem fileSystem, StoreLayout layout, LockFileProbe.Result probe)
    {
        var copy = Compaction.CompactionSwap.CopyDirectory(layout);
        var files = new List<StoreFileInfo>();
        foreach (var directory in new[] { layout.Directory, layout.JournalDirectory, copy, Path.Combine(copy, "journal") })
        {
            foreach (var path in fileSystem.ListFiles(directory, "*"))
            {
                var name = Path.GetRelativePath(layout.Directory, path).Replace('\\', '/');
                if (path == layout.LockFile || name == Path.GetFileName(layout.LockFile))
                {
                    if (probe.Length is { } lockLength)
                    {
                        files.Add(new StoreFileInfo(name, lockLength));
                    }

                    continue;
                }

                try
                {
                    using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
                    files.Add(new StoreFileInfo(name, file.Length));
                }
                catch (FileNotFoundException)
                {
                    // deleted since the listing (a released journal file of an open store)
                }
            }
        }

        return files;
    }

    /// <summary>Files a compaction left: finished by the next open after its commit point, deleted before it (Compaction/CompactionSwap.cs).</summary>
    private static void CheckCompaction(IFileSystem fileSystem, StoreLayout layout, List<string> problems)
    {
        var copy = Compaction.CompactionSwap.CopyDirectory(layout);
        if (fileSystem.ListFiles(copy, "*").Count == 0)
        {
            return;
        }

        problems.Add(fileSystem.FileExists(Compaction.CompactionSwap.MarkerPath(layout))
            ? "A compaction passed its commit point (compaction/ready) but did not finish swapping: the next open finishes it, and the store then holds the compacted copy (what this look describes is the store before it)."
            : "An interrupted compaction left files in compaction/: the next open deletes them.");
    }
}
