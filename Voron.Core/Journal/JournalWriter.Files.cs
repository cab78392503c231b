using System.Diagnostics;
using Voron.Platform;

namespace Voron.Journal;

/// <summary>The journal file lifecycle drawn in JournalWriter.cs: resuming, rotating, releasing.</summary>
internal sealed partial class JournalWriter
{
    /// <summary>
    /// Tells the journal that the data file is durably synced up to <paramref name="syncedUpTo"/>
    /// and a durable header records it as the recovery start: every journal file numbered below
    /// its file is released (J6) — renamed to a spare while fewer than <see cref="MaxSpareFiles"/>
    /// exist and it has the configured size, deleted otherwise. Calling it earlier, before that
    /// header is durable, can lose acknowledged transactions.
    /// </summary>
    public void ReleaseBefore(JournalPosition syncedUpTo)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (syncedUpTo.FileNumber > _fileNumber)
        {
            throw new ArgumentOutOfRangeException(nameof(syncedUpTo), syncedUpTo,
                $"The journal has written only up to {Position}; nothing past it can be synced.");
        }

        var spares = JournalFiles.ListSpares(_fileSystem, _directory).Count;
        var changed = false;
        foreach (var number in JournalFiles.List(_fileSystem, _directory))
        {
            if (number >= syncedUpTo.FileNumber)
            {
                break;
            }

            Debug.Assert(number != _fileNumber, "J6: the current file is never released");
            var path = JournalFiles.PathOf(_directory, number);
            if (spares < MaxSpareFiles && LengthOf(path) == _fileSize)
            {
                _fileSystem.MoveFile(path, JournalFiles.SparePathOf(_directory, number));
                spares++;
            }
            else
            {
                _fileSystem.DeleteFile(path);
            }

            changed = true;
        }

        if (changed)
        {
            // Not needed for safety (a released file that comes back is older than the recovery
            // start and never read); it keeps the spare count the directory shows honest.
            _fileSystem.SyncDirectory(_directory);
        }
    }

    /// <summary>J5: journal files beyond the recovered end hold no acknowledged record; a later
    /// rotation must find their numbers free.</summary>
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

            return PrepareNewFile(resumeAt.FileNumber, _fileSize, out _);
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
                // A crash during the file's creation can leave it shorter than preallocated (F2):
                // finish the preallocation rather than rotate away from an empty file.
                file.Preallocate(_fileSize);
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

    /// <summary>Moves to the next file, big enough for a record of <paramref name="recordSize"/> bytes (J4).</summary>
    private void Rotate(long recordSize)
    {
        var number = _fileNumber + 1;
        var next = PrepareNewFile(number, Math.Max(_fileSize, recordSize), out var written);
        if (_unsynced)
        {
            _file.FlushData(); // lazy records of the old file become durable before we leave it
            _unsynced = false;
        }

        _file.Dispose();
        _file = next;
        _fileNumber = number;
        _offset = 0;
        _fileLength = next.Length;
        _writtenUpTo = written;
    }

    /// <summary>
    /// Journal file <paramref name="number"/>, at least <paramref name="size"/> bytes, made from a
    /// spare when one exists (its stale records are end-of-log by J6) or created, with its size
    /// and name durable before anything is written into it (J4). <paramref name="written"/> is how
    /// much of it already holds written blocks: a spare's old length (its stale records), else 0.
    /// </summary>
    private IStorageFile PrepareNewFile(long number, long size, out long written)
    {
        var path = JournalFiles.PathOf(_directory, number);
        var spares = JournalFiles.ListSpares(_fileSystem, _directory);
        IStorageFile file;
        if (spares.Count > 0)
        {
            _fileSystem.MoveFile(JournalFiles.SparePathOf(_directory, spares[0]), path);
            file = _fileSystem.Open(path, FileOpenMode.OpenExisting);
            written = file.Length;
        }
        else
        {
            file = _fileSystem.Open(path, FileOpenMode.CreateNew);
            written = 0;
        }

        try
        {
            file.Preallocate(size);
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

    private long LengthOf(string path)
    {
        using var file = _fileSystem.Open(path, FileOpenMode.OpenExisting);
        return file.Length;
    }
}
