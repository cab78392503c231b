using System.Diagnostics;
using Voron.Platform;

namespace Voron.Journal;

/// <summary>The journal file lifecycle drawn in JournalWriter.cs: resuming, rotating, releasing.</summary>
internal sealed partial class JournalWriter
{
    /// <summary>Where released files are archived before they are deleted (JournalArchiver.cs); null = deleted only.</summary>
    public string? ArchiveDirectory { get; init; }

    /// <summary>Called with a file's number once it is archived (JA3: complete and durable there): the shipper's wake.</summary>
    public Action<long>? Archived { get; set; }

    private readonly HashSet<long> _archived = []; // archived by ArchiveBefore, not yet released

    // JA11: where the log ends in each file this writer left (written under _lock by Rotate, read
    // without it by ArchiveBefore, removed by ReleaseBefore).
    private readonly System.Collections.Concurrent.ConcurrentDictionary<long, long> _leftEnds = new();

    /// <summary>
    /// Archives (JA1..JA4) the files <see cref="ReleaseBefore"/> is about to release for the same
    /// position, ahead of it and without the writer's lock (J13): released files are never
    /// written again (J6), so the commits that append meanwhile do not wait for the copy. Called
    /// by the one thread that releases (the flusher); a no-op without an archive.
    /// </summary>
    public void ArchiveBefore(JournalPosition syncedUpTo)
    {
        if (ArchiveDirectory == null)
        {
            return;
        }

        foreach (var number in JournalFiles.List(_fileSystem, _directory))
        {
            if (number >= syncedUpTo.FileNumber)
            {
                break;
            }

            if (!_archived.Contains(number))
            {
                JournalArchiver.Archive(_fileSystem, _directory, ArchiveDirectory, number, LeftEnd(number));
                _archived.Add(number);
                Archived?.Invoke(number);
            }
        }
    }

    /// <summary>
    /// Tells the journal that the data file is durably synced up to <paramref name="syncedUpTo"/>
    /// and a durable header records it as the recovery start: every journal file numbered below
    /// its file is deleted (J6) — archived first when <see cref="ArchiveDirectory"/> is set (JA1). Calling it earlier, before that header is durable, can lose
    /// acknowledged transactions.
    /// </summary>
    public void ReleaseBefore(JournalPosition syncedUpTo)
    {
        lock (_lock) // J13: never while an append rotates
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (syncedUpTo.FileNumber > _fileNumber)
            {
                throw new ArgumentOutOfRangeException(nameof(syncedUpTo), syncedUpTo,
                    $"The journal has written only up to {Position}; nothing past it can be synced.");
            }

            var changed = false;
            foreach (var number in JournalFiles.List(_fileSystem, _directory))
            {
                if (number >= syncedUpTo.FileNumber)
                {
                    break;
                }

                Debug.Assert(number != _fileNumber, "J6: the current file is never released");
                if (ArchiveDirectory != null && !_archived.Remove(number))
                {
                    JournalArchiver.Archive(_fileSystem, _directory, ArchiveDirectory, number, LeftEnd(number)); // JA1, JA3: archived before it goes
                    Archived?.Invoke(number);
                }

                _fileSystem.DeleteFile(JournalFiles.PathOf(_directory, number));
                _leftEnds.TryRemove(number, out _);
                changed = true;
            }

            if (changed)
            {
                // Not needed for safety (a released file that comes back is older than the recovery
                // start and never read); it gives the space back for sure.
                _fileSystem.SyncDirectory(_directory);
            }
        }
    }

    /// <summary>JA11: where the log ends in file <paramref name="number"/> if this writer left it, or null (the scan finds it).</summary>
    private long? LeftEnd(long number) => _leftEnds.TryGetValue(number, out var end) ? end : null;

    /// <summary>
    /// J14: the recovery start equivalent to <paramref name="end"/> (the end of a record) that
    /// releases the most: the start of the next file when <paramref name="end"/> is where the log
    /// ends in a file the writer has left (the next record is at offset 0 of the next file, J1,
    /// and that file is durable, J4); <paramref name="end"/> itself otherwise.
    /// </summary>
    public JournalPosition Continuation(JournalPosition end)
    {
        lock (_lock) // J13
        {
            return end.FileNumber < _fileNumber && _leftEnds.TryGetValue(end.FileNumber, out var leftAt) && leftAt == end.Offset
                ? new JournalPosition(end.FileNumber + 1, 0)
                : end;
        }
    }

    /// <summary>The current file's number and whether it holds a record (the timely release's clock starts at its first).</summary>
    public (long File, bool HasRecords) Current
    {
        get
        {
            lock (_lock) // J13
            {
                return (_fileNumber, _offset > 0);
            }
        }
    }

    /// <summary>Whether a journal file before the current one is still on disk (not released yet).</summary>
    public bool HoldsLeftFiles
    {
        get
        {
            var current = Current.File;
            return JournalFiles.List(_fileSystem, _directory).Any(number => number < current);
        }
    }

    /// <summary>
    /// J14: leaves journal file <paramref name="fileNumber"/> for a new one, so that the flusher can
    /// release it (and the archive copy it) without waiting for it to fill: only while it is still
    /// the current file and holds a record; false otherwise (the writer rotated meanwhile, or
    /// nothing was written). Commits wait on the writer's lock while the new file is prepared.
    /// </summary>
    public bool StartNewFile(long fileNumber)
    {
        lock (_lock) // J13
        {
            ThrowIfUnusable();
            if (_fileNumber != fileNumber || _offset == 0)
            {
                return false;
            }

            try
            {
                Rotate(JournalRecord.Alignment);
            }
            catch (Exception e)
            {
                _failure = e; // J7
                throw;
            }

            return true;
        }
    }

    /// <summary>J5: journal files beyond the recovered end hold no acknowledged record; a later
    /// rotation must find their numbers free. Spares that format version 1 kept for reuse go too (J6).</summary>
    private void DeleteFilesAfter(long fileNumber)
    {
        var deleted = false;
        foreach (var number in JournalFiles.List(_fileSystem, _directory))
        {
            if (number > fileNumber)
            {
                _fileSystem.DeleteFile(JournalFiles.PathOf(_directory, number));
                deleted = true;
            }
        }

        foreach (var number in JournalFiles.ListSpares(_fileSystem, _directory))
        {
            _fileSystem.DeleteFile(JournalFiles.SparePathOf(_directory, number));
            deleted = true;
        }

        if (deleted)
        {
            _fileSystem.SyncDirectory(_directory);
        }
    }

    private IStorageFile OpenResumeFile(JournalPosition resumeAt)
    {
        var path = JournalFiles.PathOf(_directory, resumeAt.FileNumber);
        if (!_fileSystem.FileExists(path))
        {
            // Recovery reports a missing start file only at offset 0 (JournalReader.CheckStart).
            if (resumeAt.Offset != 0)
            {
                throw new ArgumentException($"Cannot resume at {resumeAt}: '{path}' does not exist.", nameof(resumeAt));
            }

            return PrepareNewFile(resumeAt.FileNumber, _fileSize, JournalRecord.Alignment);
        }

        var file = _fileSystem.Open(path, FileOpenMode.OpenExisting);
        try
        {
            if (resumeAt.Offset > file.Length)
            {
                throw new ArgumentException($"Cannot resume at {resumeAt}: '{path}' has only {file.Length} bytes.", nameof(resumeAt));
            }

            if (file.Length < _fileSize)
            {
                // A crash during the file's creation can leave it shorter than preallocated (F2), and
                // a full disk can have made it smaller on purpose (J12): finish the preallocation
                // rather than rotate away from an almost empty file — if the disk has room now.
                try
                {
                    file.Preallocate(_fileSize);
                }
                catch (DiskFullException)
                {
                    // J12: go on with the file as it is; the next record that does not fit rotates.
                }

                file.FlushData();
            }

            return file;
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    // JA8. the writer never leaves a journal file without a record before a later file: a record
    //      that does not fit at offset 0 of the current file (a file resumed after a crash at its
    //      start, or a new store's first file, preallocated to JournalFileSize) grows that file
    //      instead of rotating. Recovery (D3) steps over an empty file only from a position inside
    //      it; from the end of the file before it, an empty file reads as the end of the log, and
    //      the records after it (acknowledged ones) would be cut off — at a second crash, or when
    //      the archive is replayed.

    /// <summary>JA8: makes the current file, still without a record, big enough for one of <paramref name="recordSize"/> bytes.</summary>
    private void GrowForFirstRecord(long recordSize)
    {
        _file.Preallocate(recordSize);
        _file.FlushData(); // F2: the size is durable before the record relies on it
        _fileLength = _file.Length;
    }

    /// <summary>Moves to the next file, big enough for a record of <paramref name="recordSize"/> bytes (J4).</summary>
    private void Rotate(long recordSize)
    {
        var number = _fileNumber + 1;
        var next = PrepareNewFile(number, Math.Max(_fileSize, recordSize), recordSize);
        if (_unsynced)
        {
            _file.FlushData(); // lazy records of the old file become durable before we leave it
            _unsynced = false;
        }

        _durableThrough = _nextTransactionId - 1; // J11: every earlier file was flushed when the writer left it
        _leftEnds[_fileNumber] = _offset; // JA11, J14
        _file.Dispose();
        _file = next;
        _fileNumber = number;
        _offset = 0;
        _fileLength = next.Length;
        _writtenUpTo = 0;
    }

    /// <summary>
    /// Creates journal file <paramref name="number"/>, preallocated to <paramref name="size"/> bytes —
    /// or, on a full disk, to half of that and so on down to <paramref name="minimum"/> (J12) — with
    /// its size and name durable before anything is written into it (J4). A new file reads as zeros (J10).
    /// </summary>
    private IStorageFile PrepareNewFile(long number, long size, long minimum)
    {
        var path = JournalFiles.PathOf(_directory, number);
        var file = _fileSystem.Open(path, FileOpenMode.CreateNew);
        try
        {
            for (var length = size; ; length = Math.Max(minimum, JournalRecord.AlignUp(length / 2)))
            {
                try
                {
                    file.Preallocate(length);
                    break;
                }
                catch (DiskFullException e) when (length > minimum)
                {
                    _ = e; // J12: try a smaller file
                }
                catch (DiskFullException e)
                {
                    throw new DiskFullException(
                        $"The journal needs a new file '{path}' of at least {minimum:N0} bytes (asked for {size:N0} first), and the file system " +
                        $"that holds '{_directory}' is full: {e.Message} Free at least {minimum:N0} bytes there; the store refuses writes " +
                        "until it is reopened.", _directory, minimum, e);
                }
            }

            file.FlushData();
            _fileSystem.SyncDirectory(_directory);
            return file;
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }
}
