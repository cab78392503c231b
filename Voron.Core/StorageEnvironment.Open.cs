using System.Buffers.Binary;
using System.Security.Cryptography;
using Voron.Allocation;
using Voron.Header;
using Voron.Journal;
using Voron.Journal.Diff;
using Voron.Paging;
using Voron.Platform;
using Voron.Sealing;
using Voron.Transactions;

namespace Voron;

public sealed partial class StorageEnvironment
{
    // Open algorithm:
    //   1. create the directory (owner only) and take the exclusive lock (voron.lock)
    //   1a. compaction/ (Compaction/CompactionSwap.cs): a valid marker (compaction/ready) that
    //      matches the store (CP3) = a committed compaction: finish its swap (CP2), every step
    //      idempotent; a marker that does not match is a CorruptionException (never swap in a stale
    //      copy); files there without a valid marker = an interrupted compaction: delete them. First,
    //      before the key is checked: a committed rekey's swap decides which key fits
    //   1b. an existing store's key is checked (step 2a) before anything else is written; write
    //      this process's record into the lock (Platform/LockFileRecord.cs: informational only);
    //      delete the scratch file an earlier process left (Scratch/ScratchFile.cs: nothing in it is needed)
    //   2. read the newest valid header copy (Header/HeaderFile.cs); none at all = a new store:
    //      write the data file's identity page, sync it, write header revision 1, sync the directory
    //   3. map the data file and check its identity page (format version)
    //   4. a header copy of format version 1: upgrade the store, or refuse it (UpgradeFormat1)
    //   5. recovery: replay journal records after the header's synced point, in order, writing
    //      their pages into the data file (Journal/JournalReader.cs decides torn tail vs corruption,
    //      as options.JournalTailRecovery says); every record is bound to the header's StoreId
    //   6. if anything was replayed: sync the data file, then write the next header copy, so the
    //      replayed journal is no longer needed; a header copy of format version 2 is replaced by
    //      one of the current version here too, before the journal writer writes its first record
    //      (the store is read as it is: Header/HeaderFile.cs, Compatibility)
    //   7. resume the journal after the last valid record, zeroing whatever lies after it if
    //      anything does (J10), and load the free-space digest
    //
    // Space: recovery writes only into space the store already holds — replayed pages lie below
    // the data file's length, which the commit reserved before journaling them (Pager.Reserve) —
    // so a store that hit a full disk opens again without more room than it had (journal files
    // excepted: a missing resume file is created as small as it must be, J12).

    /// <param name="options">The store.</param>
    /// <param name="heldLock">The store's lock when the caller took it already (compaction keeps it across two opens); disposed with the store.</param>
    private static StorageEnvironment OpenCore(StorageEnvironmentOptions options, IDisposable? heldLock = null)
    {
        ValidateShipping(options);
        var fileSystem = options.FileSystem;
        var layout = new StoreLayout(options.Directory);
        fileSystem.CreateDirectory(layout.Directory);
        var storeLock = heldLock ?? fileSystem.LockExclusive(layout.LockFile);
        Pager? pager = null;
        JournalWriter? journal = null;
        StoreKey? storeKey = null;
        JournalSealing? writerSealing = null;
        try
        {
            options.ResolveSealingKey(); // the provider, once per open, with the lock held; cleared at dispose
            // Step 1a first: a swap whose marker is written is committed whatever key is given, and
            // after a rekey (StorageEnvironment.RekeyAsync) it decides which key the store takes.
            Compaction.CompactionSwap.Resume(fileSystem, layout, options.JournalArchiveDirectory);
            if (HeaderFile.ReadNewest(fileSystem, layout) is { } existing)
            {
                DeriveStoreKey(existing, options.SealingKey, layout.Directory)?.Dispose(); // SL5: a key that does not fit changes no other file, the lock's record included
            }

            LockFileRecord.TryWrite(storeLock, options.Durability); // who holds it, for StoreLockedException and Inspect
            Scratch.ScratchFile.DeleteLeftover(fileSystem, layout.ScratchFile); // SC3: an earlier process's spilled versions are all in the journal
            var header = HeaderFile.ReadNewest(fileSystem, layout, out var headerCopies) ?? CreateStore(fileSystem, layout, headerCopies, options.SealingKey);
            storeKey = DeriveStoreKey(header, options.SealingKey, layout.Directory); // step 2a
            if (!fileSystem.FileExists(layout.DataFile))
            {
                RecreateMissingDataFile(fileSystem, layout, header);
            }

            pager = new Pager(fileSystem.Open(layout.DataFile, FileOpenMode.OpenExisting), options.MaxDataFileSize,
                storeKey is null ? null : new SealedPages(storeKey, options.DecryptedPageCacheSize)); // PG7
            DataFileIdentity.Validate(pager.ReadIdentityPage(), layout.DataFile);

            // Write-ahead during recovery too: records a lazy-mode process left in the OS cache
            // become durable before any of them reaches the data file (and J11: every record
            // recovery finds is durable, which is what the resumed writer assumes).
            foreach (var number in JournalFiles.List(fileSystem, layout.JournalDirectory))
            {
                using var journalFile = fileSystem.Open(JournalFiles.PathOf(layout.JournalDirectory, number), FileOpenMode.OpenExisting);
                journalFile.FlushData();
            }

            // A header copy created by a flush whose directory sync failed (and whose failure a
            // dispose swallowed) gets a durable name now, before anything relies on it again.
            fileSystem.SyncDirectory(layout.Directory);
            if (header.IsFormat1)
            {
                header = UpgradeFormat1(fileSystem, layout, header);
            }

            HeaderRecord recovered;
            JournalRecoveryResult result;
            using (var readerSealing = storeKey is null ? null : new JournalSealing(storeKey))
            {
                (recovered, result) = Recover(fileSystem, layout, pager, header, options.JournalTailRecovery, readerSealing);
            }

            if (recovered.LastSyncedTxId != header.LastSyncedTxId)
            {
                pager.Sync();
                header = recovered with { FormatVersion = recovered.CurrentFormatVersion };
                HeaderFile.Write(fileSystem, layout, header);
            }
            else if (header.FormatVersion != header.CurrentFormatVersion || JournalFiles.List(fileSystem, layout.JournalDirectory).Any(n => n < header.JournalFile))
            {
                // A format-2 header: a format-2 build must refuse the store (FormatVersionException)
                // before this build's first journal record, which it would report as damage.
                // Journal files about to be released on the strength of this header: make it
                // durable ourselves first. A header read back may be a cached copy whose fsync
                // failed in an earlier process (fsyncgate) and that a power loss would undo.
                header = header with { Revision = header.Revision + 1, FormatVersion = header.CurrentFormatVersion };
                HeaderFile.Write(fileSystem, layout, header);
            }

            var end = result.End;
            writerSealing = storeKey is null ? null : new JournalSealing(storeKey); // SL8: one per writer, disposed with the store
            journal = new JournalWriter(fileSystem, layout.JournalDirectory, header.StoreId, result, options.JournalFileSize, writerSealing) // J10: clears the tail
            {
                ArchiveDirectory = options.JournalArchiveDirectory, // JA1
            };
            // J6: only files before the durable header's recovery start may go — not every file
            // before the end of the log, which may lie in a later file than the header names.
            journal.ReleaseBefore(new JournalPosition(header.JournalFile, header.JournalOffset));
            // PG5 for whatever the state says is allocated (a no-op for a store this version wrote;
            // a store upgraded from format 1 may hold fewer pages than it allocated).
            if (header.State.NextPageNumber > pager.MaxPageCount)
            {
                throw new CorruptionException(layout.DataFile, 0,
                    $"the store's state (transaction {header.LastSyncedTxId}) says {header.State.NextPageNumber:N0} pages are allocated, beyond the data file " +
                    $"({pager.PageCount:N0} pages) and beyond MaxDataFileSize ({pager.MaxPageCount:N0} pages); if MaxDataFileSize was lowered, raise it");
            }

            pager.Reserve(header.State.NextPageNumber);
            pager.Views.ReleaseAll(); // MV1: the store is not handed out yet, and Reserve may have grown the file
            var committed = new CommittedState(header.LastSyncedTxId, header.State, FreeSpaceSummary.Empty, end)
            {
                CommitTime = result.RecordCount > 0 ? result.LastCommitTime : 0, // else its record was not read (a backup reads it: SnapshotCopy)
            };
            var environment = new StorageEnvironment(options, storeLock, pager, journal, committed, header)
            {
                SealKey = storeKey,
                Seal = header.Seal,
                JournalSealing = writerSealing,
            };
            environment.LoadFreeSpace();
            environment.StartShipping(); // SH1
            Diagnostics.VoronMetrics.Track(environment);
            return environment;
        }
        catch
        {
            journal?.Dispose();
            writerSealing?.Dispose();
            storeKey?.Dispose();
            options.ReleaseSealingKey();
            pager?.Dispose();
            storeLock.Dispose();
            throw;
        }
    }

    /// <summary>A new store's id (FORMAT block in Header/HeaderFile.cs): random and never zero.</summary>
    internal static ulong NewStoreId()
    {
        Span<byte> bytes = stackalloc byte[8];
        ulong id;
        do
        {
            RandomNumberGenerator.Fill(bytes);
            id = BinaryPrimitives.ReadUInt64LittleEndian(bytes);
        }
        while (id == 0);

        return id;
    }

    /// <summary>
    /// A store whose newest header copy is format version 1 (no store id, journal records without
    /// sectors). If its journal holds a record the data file lacks, this build cannot replay it:
    /// the store is refused with what to do. Otherwise (the store was closed cleanly, or every
    /// commit was flushed) it is upgraded: a current header copy with a new store id and the
    /// journal starting in a new file is written (the older copy is untouched, so a crash leaves
    /// one valid copy, J-style), and the open goes on — the version-1 journal files are released
    /// on the strength of that header like any other.
    /// </summary>
    private static HeaderRecord UpgradeFormat1(IFileSystem fileSystem, StoreLayout layout, HeaderRecord header)
    {
        var numbers = JournalFiles.List(fileSystem, layout.JournalDirectory);
        var expected = header.LastSyncedTxId + 1;
        foreach (var (number, offset) in new[] { (header.JournalFile, header.JournalOffset), (header.JournalFile + 1, 0L) })
        {
            if (ReadFormat1Header(fileSystem, layout, number, offset) == expected)
            {
                throw new FormatVersionException(JournalFiles.PathOf(layout.JournalDirectory, number), JournalRecord.FormatVersion1, JournalRecord.FormatVersion,
                    $"The store's journal holds transaction {expected} and maybe more, not yet in its data file, in format 1. Open the store once with " +
                    "the Voron build that wrote it and dispose it cleanly (a clean close writes every commit to the data file); this build then " +
                    "upgrades it on open.");
            }
        }

        foreach (var number in numbers.Where(n => n >= header.JournalFile))
        {
            if (FirstRecordVersion(fileSystem, layout, number) is > JournalRecord.FormatVersion1)
            {
                throw new CorruptionException(layout.HeaderFile(header.Revision), 0,
                    $"the newest valid header copy is format 1, but journal file {number} holds records of a later format: a newer header copy was " +
                    "lost, and opening from this one would skip them");
            }
        }

        var upgraded = header with
        {
            Revision = header.Revision + 1,
            JournalFile = Math.Max(header.JournalFile, numbers.Count == 0 ? 0 : numbers[^1]) + 1,
            JournalOffset = 0,
            StoreId = NewStoreId(),
            FormatVersion = HeaderFile.FormatVersion, // a format-1 store is not sealed
        };
        HeaderFile.Write(fileSystem, layout, upgraded);
        return upgraded;
    }

    /// <summary>The transaction id of an intact format-1 record header at <paramref name="offset"/>
    /// of journal file <paramref name="number"/>, or -1 when there is none.</summary>
    private static long ReadFormat1Header(IFileSystem fileSystem, StoreLayout layout, long number, long offset)
    {
        var path = JournalFiles.PathOf(layout.JournalDirectory, number);
        if (!fileSystem.FileExists(path))
        {
            return -1;
        }

        using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
        var header = new byte[JournalRecord.HeaderSize];
        if (file.Read(offset, header) < header.Length ||
            BinaryPrimitives.ReadUInt64LittleEndian(header) != JournalRecord.Magic ||
            BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(JournalRecord.FormatVersionOffset)) != JournalRecord.FormatVersion1)
        {
            return -1;
        }

        // Format 1: CRC32C of the 128 bytes with the checksum field (44) read as zero, no binding.
        var stored = BinaryPrimitives.ReadUInt32LittleEndian(header.AsSpan(JournalRecord.HeaderChecksumOffset));
        header.AsSpan(JournalRecord.HeaderChecksumOffset, 4).Clear();
        return stored == Crc32C.Compute(header) ? JournalRecord.GetTransactionId(header) : -1;
    }

    /// <summary>The format version the first slot of journal file <paramref name="number"/> claims, or null when it holds no record magic.</summary>
    private static int? FirstRecordVersion(IFileSystem fileSystem, StoreLayout layout, long number)
    {
        using var file = fileSystem.Open(JournalFiles.PathOf(layout.JournalDirectory, number), FileOpenMode.OpenExisting);
        var header = new byte[16];
        return file.Read(0, header) == header.Length && BinaryPrimitives.ReadUInt64LittleEndian(header) == JournalRecord.Magic
            ? BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(JournalRecord.FormatVersionOffset))
            : null;
    }

    /// <summary>
    /// Creates a new store — or finishes creating one a crash interrupted: with no valid header,
    /// a store that holds nothing yet (no journal file, a data file of at most its identity page)
    /// is created again; anything more is someone's data and is refused.
    /// </summary>
    private static HeaderRecord CreateStore(IFileSystem fileSystem, StoreLayout layout, int headerCopies, byte[]? sealingKey)
    {
        var what = headerCopies == 0 ? "both header files (headers.one, headers.two) are missing" : "neither header copy (headers.one, headers.two) is valid (rules HF1/HF2)";
        if (fileSystem.FileExists(layout.DataFile))
        {
            using var existing = fileSystem.Open(layout.DataFile, FileOpenMode.OpenExisting);
            if (existing.Length > Constants.PageSize)
            {
                throw new CorruptionException(headerCopies == 0 ? layout.DataFile : layout.HeaderFile(1), 0,
                    $"the data file holds data but {what}; refusing to create a new store over it");
            }
        }

        if (fileSystem.ListFiles(layout.JournalDirectory, "*.journal").Count > 0)
        {
            throw new CorruptionException(headerCopies == 0 ? layout.JournalDirectory : layout.HeaderFile(1), 0,
                $"journal files exist but {what}; the store cannot be opened");
        }

        using (var data = fileSystem.Open(layout.DataFile, FileOpenMode.OpenOrCreate))
        {
            data.SetLength(0);
            data.Write(0, DataFileIdentity.Create());
            data.FlushData();
        }

        fileSystem.CreateDirectory(layout.JournalDirectory);
        fileSystem.SyncDirectory(layout.Directory); // voron.data and journal/ are durable before the header names them
        var header = new HeaderRecord(1, 0, 1, 0, EnvironmentState.Empty, NewStoreId()); // journal file 1, offset 0
        if (sealingKey is not null)
        {
            header = header with { Seal = HeaderSeal.For(sealingKey, StoreKey.NewSalt(), header.StoreId, SealFormat.Preferred) }; // SL2
            header = header with { FormatVersion = header.CurrentFormatVersion };
        }

        foreach (var path in new[] { layout.HeaderFile(1), layout.HeaderFile(2) })
        {
            fileSystem.DeleteFile(path); // a torn copy from an interrupted creation
        }

        HeaderFile.Write(fileSystem, layout, header); // syncs the directory: the header's name is durable

        // The second copy's space is taken now (an invalid copy: zeros), so that no header write
        // ever needs new space — a store that filled the disk writes its headers on the next open.
        using (var second = fileSystem.Open(layout.HeaderFile(2), FileOpenMode.OpenOrCreate))
        {
            second.Write(0, new byte[HeaderFile.Size]);
            second.FlushData();
        }

        fileSystem.SyncDirectory(layout.Directory);
        var parent = System.IO.Path.GetDirectoryName(layout.Directory);
        if (!string.IsNullOrEmpty(parent))
        {
            fileSystem.SyncDirectory(parent); // the store directory itself is durable (F2)
        }

        return header;
    }

    /// <summary>
    /// Step 2a (SL5): the store's subkeys, derived from <paramref name="userKey"/> and the header's
    /// salt, once the header's check value proves the key is the store's; null for a store that is
    /// not sealed. Every mismatch is a <see cref="EncryptionKeyException"/> saying which, thrown before
    /// anything past the header is read or written.
    /// </summary>
    internal static StoreKey? DeriveStoreKey(HeaderRecord header, byte[]? userKey, string directory)
    {
        if (header.Seal is not { } seal)
        {
            return userKey is null
                ? null
                : throw new EncryptionKeyException(directory, EncryptionKeyProblem.KeyForUnencryptedStore,
                    $"The store at '{directory}' is not encrypted, and an encryption key was given. Open it without EncryptionKey and " +
                    "EncryptionKeyProvider, or encrypt it first with StorageEnvironment.RekeyAsync; nothing was changed.");
        }

        if (userKey is null)
        {
            throw new EncryptionKeyException(directory, EncryptionKeyProblem.NoKey,
                $"The store at '{directory}' is encrypted ({seal.Algorithm}), and no encryption key was given. Set EncryptionKey or " +
                "EncryptionKeyProvider to the key it was created with (the voron tool: --key-file or VORON_KEY_FILE); nothing was changed.");
        }

        if (!SealFormat.IsSupported(seal.Algorithm))
        {
            throw new EncryptionKeyException(directory, EncryptionKeyProblem.AlgorithmNotSupported,
                $"The store at '{directory}' is encrypted with {seal.Algorithm}, which this machine's cryptography library does not offer (SL6). Open it " +
                "on a machine that does; nothing was changed.");
        }

        var key = StoreKey.Derive(userKey, seal.Salt, header.StoreId, seal.Algorithm);
        if (!key.Matches(seal.CheckValue))
        {
            key.Dispose();
            throw new EncryptionKeyException(directory, EncryptionKeyProblem.WrongKey,
                $"The store at '{directory}' is encrypted under another key: the given key does not derive the key check value its header holds (SL5). " +
                "Open it with the key it was created with; nothing was read or changed.");
        }

        return key;
    }

    /// <summary>
    /// A valid header without a data file: when no transaction was ever synced to it (a crash
    /// during creation on a file system that reorders directory changes), everything committed is
    /// still in the journal, so the identity page is written again and recovery replays the rest;
    /// otherwise the data file is lost, which no recovery can repair.
    /// </summary>
    private static void RecreateMissingDataFile(IFileSystem fileSystem, StoreLayout layout, HeaderRecord header)
    {
        if (header.LastSyncedTxId != 0)
        {
            throw new CorruptionException(layout.DataFile, 0, $"the data file is missing but the header says transaction {header.LastSyncedTxId} was synced to it");
        }

        using (var data = fileSystem.Open(layout.DataFile, FileOpenMode.OpenOrCreate))
        {
            data.SetLength(0);
            data.Write(0, DataFileIdentity.Create());
            data.FlushData();
        }

        fileSystem.SyncDirectory(layout.Directory);
    }

    /// <summary>Replays the journal after the header's synced point into the data file.</summary>
    private static (HeaderRecord Header, JournalRecoveryResult Result) Recover(IFileSystem fileSystem, StoreLayout layout, Pager pager, HeaderRecord header,
        JournalTailRecovery mode, JournalSealing? sealing)
    {
        var state = header.State;
        byte[] image = [];
        var named = new InDataFileChecks(); // R10, IP5
        var result = JournalReader.Recover(fileSystem, layout.JournalDirectory, header.StoreId,
            new JournalPosition(header.JournalFile, header.JournalOffset), header.LastSyncedTxId + 1,
            record =>
            {
                var file = JournalFiles.PathOf(layout.JournalDirectory, record.Start.FileNumber);
                var recordState = EnvironmentState.ReadFrom(record.State.Span, file, record.Start.Offset);
                foreach (var page in record.Pages)
                {
                    if (page.Encoding == JournalPageEncoding.InDataFile)
                    {
                        CheckEntryBounds(page, recordState, file, record.Start.Offset, record.TransactionId);
                        named.Name(page, file, record.Start.Offset, record.TransactionId);
                        continue;
                    }

                    named.Overwritten(page.PageNumber, page.PageCount); // R10: the last record that writes a page defines it
                    ReplayPage(pager, page, recordState, ref image, file, record.Start.Offset, record.TransactionId);
                }

                pager.Views.ReleaseAll(); // MV1: replay reads and writes through the file, never the mapping
                state = recordState;
            },
            mode, sealing: sealing);
        named.Verify(pager); // R10: before the header moves past the records that name them
        if (result.LastTransactionId == header.LastSyncedTxId)
        {
            return (header, result);
        }

        var recovered = header with
        {
            Revision = header.Revision + 1, LastSyncedTxId = result.LastTransactionId, JournalFile = result.End.FileNumber, JournalOffset = result.End.Offset, State = state,
        };
        return (recovered, result);
    }

    /// <summary>
    /// Applies one journal entry to the data file: a full image is written as is; a diff against
    /// zeros is applied to a zeroed page; a diff against the previous version is applied on top of
    /// the page as the data file holds it now (an older, newer or sector-mixed version of it — the
    /// diffs replayed in order repair all three, DESIGN.md section 6). An entry must lie below the
    /// record's own NextPageNumber (no transaction writes a page it has not allocated): that bounds
    /// the buffer a diff entry asks for, and the data file's growth, by the store's size.
    /// </summary>
    internal static void ReplayPage(Pager pager, RecoveredPage page, EnvironmentState state, ref byte[] image, string file, long offset, long txId)
    {
        CheckEntryBounds(page, state, file, offset, txId);
        if (page.Encoding == JournalPageEncoding.InDataFile)
        {
            // IP6: only recovery, over the data file the pages were written to, replays these.
            throw new CorruptionException(file, offset,
                $"R10: record tx {txId} names pages [{page.PageNumber}, {page.PageNumber + page.PageCount}) that its store wrote in place in its own data file " +
                "instead of journaling them; replaying it anywhere else cannot restore them. A store writes such records only while it has no journal " +
                "archive (IP6): restore to a transaction before this one, or from a backup taken after it");
        }

        if (page.Encoding == JournalPageEncoding.FullImage)
        {
            pager.WritePage(page.PageNumber, page.Bytes.Span);
            return;
        }

        var length = page.PageCount * Constants.PageSize; // <= MaxEntryPageCount pages (R8): fits an int
        if (image.Length < length)
        {
            image = new byte[length];
        }

        var target = image.AsSpan(0, length);
        target.Clear();
        if (page.Encoding == JournalPageEncoding.DiffAgainstPrevious)
        {
            pager.ReadOpened(page.PageNumber, target); // a sealed store's writer never journals these (T10); the page must open
        }

        ApplyDiff(page, target, file, offset, txId);
        pager.WritePage(page.PageNumber, target);
    }

    /// <summary>R9 without a target: whether a diff entry is well-formed (for a look that replays nothing, Diagnostics/StoreInspector.cs).</summary>
    internal static void CheckDiff(RecoveredPage page, string file, long offset, long txId)
    {
        try
        {
            PageDiff.Validate(page.Bytes.Span, page.PageCount * Constants.PageSize);
        }
        catch (InvalidDataException e)
        {
            throw new CorruptionException(file, offset, $"R9: the diff of page {page.PageNumber} in record tx {txId} is malformed: {e.Message}");
        }
    }

    /// <summary>R8: an entry lies below its record's NextPageNumber.</summary>
    internal static void CheckEntryBounds(RecoveredPage page, EnvironmentState state, string file, long offset, long txId)
    {
        if (page.PageNumber > state.NextPageNumber - page.PageCount)
        {
            throw new CorruptionException(file, offset,
                $"R8: entry for pages [{page.PageNumber}, {page.PageNumber + page.PageCount}) of record tx {txId} lies past the record's next page number {state.NextPageNumber}");
        }
    }

    /// <summary>R9: applies a diff entry to <paramref name="target"/>; a malformed diff is a <see cref="CorruptionException"/>.</summary>
    internal static void ApplyDiff(RecoveredPage page, Span<byte> target, string file, long offset, long txId)
    {
        try
        {
            PageDiff.Apply(page.Bytes.Span, target);
        }
        catch (InvalidDataException e)
        {
            throw new CorruptionException(file, offset, $"R9: the diff of page {page.PageNumber} in record tx {txId} is malformed: {e.Message}");
        }
    }

    private void LoadFreeSpace()
    {
        var committed = _committed;
        var reader = new LowLevelTransaction(_transactions, committed, writable: false);
        var summary = FreeSpaceSummary.Load(reader, committed.State.FreeSpaceRoot, committed.State.NextPageNumber);
        _committed = committed with { FreeSpace = summary };
    }
}
