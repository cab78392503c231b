using Voron.Header;
using Voron.Journal;
using Voron.Platform;

namespace Voron.Backup;

// The directory a backup or a restore writes (BK1..BK4).
//
// BK1. a directory is a backup iff it holds a valid manifest (voron.backup, Backup/BackupManifest.cs).
//      The manifest is written as voron.backup.partial at the start (the marker that the
//      directory is a backup being written), and gets its contents, its FlushData and its final
//      name only after every other file of the copy is written, synced, named durably and
//      verified; the directory is synced after the rename. So a backup that was cancelled,
//      failed or cut by a crash has no voron.backup and is never taken for a complete one:
//      restore refuses it ("not a backup").
// BK2. a backup or restore refuses a destination that holds files, except the leftovers of an
//      earlier attempt of the same kind that did not complete (its marker is there and, for a
//      backup, no voron.backup): those files are deleted first. A cancelled or failed attempt
//      deletes what it wrote (best effort) and the directory if it made it.
// BK3. a restore refuses a destination whose lock file a process holds (StoreLockedException: a
//      restore never overwrites a live store), and one that holds any other file.
// BK4. a copy is its own store: its header carries a new store id, so journal files it writes
//      when opened are never valid records of the source (their checksums are bound to the id),
//      and the source's archived journal is replayed onto it only by a restore, with the source's id.
// BK9. a copy's journal starts at a file number past every journal file of its source: past the
//      source's current file (a backup; the manifest's file for a restore) and past the highest
//      number in the archive directory (the source's for a backup or a compaction, the one given
//      to a restore). A copy that archives to the same directory as its source then never makes
//      a file whose number the archive already holds (JA4 would fail that store).

/// <summary>Preparing, finishing and cleaning up a backup's or a restore's directory (BK1..BK4 above).</summary>
internal sealed class CopyDirectory
{
    private static readonly string[] StoreFiles = ["voron.data", "headers.one", "headers.two", "voron.lock", "voron.scratch"];
    private readonly IFileSystem _fileSystem;
    private readonly bool _madeDirectory;

    private CopyDirectory(IFileSystem fileSystem, string directory, string marker, bool madeDirectory)
    {
        _fileSystem = fileSystem;
        Directory = directory;
        Layout = new StoreLayout(directory);
        Marker = Path.Combine(directory, marker);
        _madeDirectory = madeDirectory;
    }

    public string Directory { get; }

    public StoreLayout Layout { get; }

    /// <summary>The file whose presence says the directory is being written (BK1, BK2).</summary>
    public string Marker { get; }

    /// <summary>
    /// Makes <paramref name="directory"/> ready (BK2, BK3): refuses a live store or other files,
    /// deletes an earlier incomplete attempt's files, creates the marker durably.
    /// </summary>
    public static CopyDirectory Prepare(IFileSystem fileSystem, string directory, string marker, string what)
    {
        // Only a directory of the real file system is removed by Abandon; a simulated one is left as it is.
        var made = fileSystem is Platform.Posix.PosixFileSystem or Platform.Portable.PortableFileSystem && !System.IO.Directory.Exists(directory);
        var layout = new StoreLayout(directory);
        if (fileSystem.FileExists(layout.LockFile))
        {
            fileSystem.LockExclusive(layout.LockFile).Dispose(); // BK3: StoreLockedException while a process has the store open
        }

        var markerPath = Path.Combine(directory, marker);
        var files = fileSystem.ListFiles(directory, "*").Concat(fileSystem.ListFiles(layout.JournalDirectory, "*")).ToList();
        if (files.Count > 0)
        {
            var leftover = fileSystem.FileExists(markerPath) && !fileSystem.FileExists(BackupManifest.PathIn(directory)) &&
                files.All(f => IsOurs(layout, f, markerPath));
            if (!leftover)
            {
                throw new IOException(
                    $"The {what} destination '{directory}' is not empty ({files.Count} files, e.g. '{Path.GetFileName(files[0])}'); " +
                    $"a {what} never writes over files. Give an empty or new directory.");
            }
        }

        fileSystem.CreateDirectory(directory);
        var copy = new CopyDirectory(fileSystem, directory, marker, made);
        copy.DeleteFiles(keepMarker: true);
        using (var file = fileSystem.Open(markerPath, FileOpenMode.OpenOrCreate))
        {
            file.SetLength(0);
            file.FlushData();
        }

        fileSystem.SyncDirectory(directory);
        SyncParent(fileSystem, directory);
        return copy;
    }

    private static bool IsOurs(StoreLayout layout, string path, string marker) =>
        path == marker || StoreFiles.Contains(Path.GetFileName(path)) && Path.GetDirectoryName(path) == layout.Directory.TrimEnd(Path.DirectorySeparatorChar) ||
        Path.GetDirectoryName(path) == layout.JournalDirectory && path.EndsWith(JournalFiles.Extension, StringComparison.Ordinal);

    /// <summary>
    /// Writes a new store's header pair for a copy that holds transaction <paramref name="txId"/>
    /// with <paramref name="state"/> (BK4: a new store id; the journal starts at
    /// <paramref name="firstJournalFile"/>), as StorageEnvironment's CreateStore does: the journal
    /// directory, revision 1, the second copy's space, the directory synced. The data file must be
    /// synced already. The first journal file is numbered past the source's (BK9), so that the
    /// copy, if it archives to the source's archive directory, never makes a file of a number the
    /// archive already holds (JA4 would refuse it).
    /// </summary>
    /// <remarks>With <paramref name="seal"/> (the source's seal fields) the copy is sealed under
    /// <paramref name="sealingKey"/>, with the source's salt and algorithm and its own store id (SL2).</remarks>
    public ulong WriteHeaders(long txId, EnvironmentState state, long firstJournalFile, HeaderSeal? seal = null, byte[]? sealingKey = null)
    {
        _fileSystem.CreateDirectory(Layout.JournalDirectory);
        _fileSystem.SyncDirectory(Directory); // voron.data and journal/ are durable before the header names them
        var storeId = StorageEnvironment.NewStoreId();
        var header = new HeaderRecord(1, txId, firstJournalFile, 0, state, storeId);
        if (seal is not null)
        {
            header = header with { Seal = HeaderSeal.For(sealingKey ?? throw new ArgumentNullException(nameof(sealingKey)), seal.Salt, storeId, seal.Algorithm) };
            header = header with { FormatVersion = header.CurrentFormatVersion };
        }

        HeaderFile.Write(_fileSystem, Layout, header);
        using (var second = _fileSystem.Open(Layout.HeaderFile(2), FileOpenMode.OpenOrCreate))
        {
            second.Write(0, new byte[HeaderFile.Size]);
            second.FlushData();
        }

        _fileSystem.SyncDirectory(Directory);
        return storeId;
    }

    /// <summary>Opens the copy as a store and checks every page (phase "verify"); returns the transaction it holds.</summary>
    public long Verify(CopyMeter meter, long pages, long maxDataFileSize, byte[]? sealingKey = null)
    {
        meter.Phase("verify", pages);
        var options = StorageEnvironmentOptions.ForFileSystem(Directory, _fileSystem);
        options.BackgroundFlush = false;
        options.JournalFileSize = 64 << 10; // the copy's journal starts small; a later open with a larger size grows it
        options.MaxDataFileSize = maxDataFileSize;
        options.SealingKey = sealingKey; // a sealed copy opens with its source's key

        using var environment = StorageEnvironment.Open(options);
        var report = environment.CheckIntegrity();
        meter.Advance(pages, 0);
        return report.TransactionId;
    }

    /// <summary>Syncs the directory and its parent (the copy's name is durable).</summary>
    public void SyncDirectories()
    {
        _fileSystem.SyncDirectory(Directory);
        SyncParent(_fileSystem, Directory);
    }

    /// <summary>BK2: best effort after a cancelled or failed attempt: the files, then the directory if this attempt made it.</summary>
    public void Abandon()
    {
        try
        {
            DeleteFiles(keepMarker: false);
            _fileSystem.DeleteFile(Path.Combine(Directory, BackupManifest.FileName + ".partial"));
            if (_madeDirectory && System.IO.Directory.Exists(Directory))
            {
                if (System.IO.Directory.Exists(Layout.JournalDirectory) && !System.IO.Directory.EnumerateFileSystemEntries(Layout.JournalDirectory).Any())
                {
                    System.IO.Directory.Delete(Layout.JournalDirectory);
                }

                if (!System.IO.Directory.EnumerateFileSystemEntries(Directory).Any())
                {
                    System.IO.Directory.Delete(Directory);
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // best effort: the marker (if it survived) tells the next attempt these files are its to delete
        }
    }

    private void DeleteFiles(bool keepMarker)
    {
        foreach (var name in StoreFiles)
        {
            _fileSystem.DeleteFile(Path.Combine(Directory, name));
        }

        foreach (var number in JournalFiles.List(_fileSystem, Layout.JournalDirectory))
        {
            _fileSystem.DeleteFile(JournalFiles.PathOf(Layout.JournalDirectory, number));
        }

        if (!keepMarker)
        {
            _fileSystem.DeleteFile(Marker);
        }
    }

    private static void SyncParent(IFileSystem fileSystem, string directory)
    {
        var parent = Path.GetDirectoryName(directory.TrimEnd(Path.DirectorySeparatorChar));
        if (!string.IsNullOrEmpty(parent))
        {
            fileSystem.SyncDirectory(parent);
        }
    }
}
