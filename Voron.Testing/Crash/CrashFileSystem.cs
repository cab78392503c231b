using Voron.Platform;
using Voron.Platform.Memory;

namespace Voron.Testing.Crash;

// The crash simulator: a file system that knows, at every instant, what a power loss would leave
// on the disk.
//
// It keeps two views of every file:
//   current  — what reads and read-only mappings see (F3): an InMemoryFileSystem holds it;
//   durable  — what the disk holds for sure: the bytes and size as of the last FlushData, plus
//              the ordered list of writes, SetLength and Preallocate calls made since (F1, F2).
// and two of the directory tree:
//   current  — the names that exist now;
//   durable  — the names as of the last SyncDirectory of each directory, plus the ordered list
//              of creations, deletions, renames and new subdirectories made since (F2).
//
// A power loss (AfterPowerLoss) builds a new simulator whose current and durable state are what
// the disk holds afterwards: each unsynced change kept, dropped or torn as a PowerLossPolicy
// decides (DamageModel lists the ways), a file whose name did not survive is gone with its data,
// and a file survives only inside directories that survived. The old simulator is untouched, so
// one machine state can be crashed many ways.
//
// Crash points: every mutating call is counted (IoCall: its index is the crash point). With
// CrashAtCall = k, call k does its unsynced part (a write is issued, a rename is made, a flush or
// directory sync does NOT complete) and throws SimulatedPowerLossException, and so does every
// mutating call after it — the machine is dead; reads still work so the engine can be closed.
// Faults inject an error into a call instead (IoFault) and the machine lives on.
//
// Every method that changes state takes _lock, so concurrent callers (the transaction merger,
// the flusher) see one total order of calls; that order is the Sequence of each change.

/// <summary>A file system that simulates power loss; see the notes above.</summary>
internal sealed partial class CrashFileSystem : IFileSystem, IDisposable
{
    /// <summary>Address space each simulated file reserves (InMemoryFileSystem); the largest a file may grow.</summary>
    public const long FileReserve = 1L << 30;

    private readonly object _lock = new();
    private readonly InMemoryFileSystem _memory = new(FileReserve);
    private readonly Random _random;
    private readonly Dictionary<string, SimulatedFile> _files = new(StringComparer.Ordinal);
    private readonly Dictionary<string, SimulatedFile> _durableFiles = new(StringComparer.Ordinal);
    private readonly HashSet<string> _directories = new(StringComparer.Ordinal) { "/" };
    private readonly HashSet<string> _durableDirectories = new(StringComparer.Ordinal) { "/" };
    private readonly List<DirectoryChange> _pendingDirectoryChanges = [];
    private readonly List<IoCall> _calls = [];
    private long _sequence;
    private int _nextFileId;
    private IoCall? _crashCall;

    /// <param name="seed">Seeds the simulator's own choices (what a failed fsync loses, how much of a failed write lands).</param>
    /// <param name="durableDirectories">Directories that exist durably from the start (a store's parent, made by the user).</param>
    public CrashFileSystem(int seed, params string[] durableDirectories)
    {
        Seed = seed;
        _random = new Random(seed);
        foreach (var directory in durableDirectories)
        {
            for (var d = Normalize(directory); d != "/"; d = ParentOf(d))
            {
                _directories.Add(d);
                _durableDirectories.Add(d);
            }
        }
    }

    public int Seed { get; }

    /// <summary>The index of the call at which the machine loses power; null: never.</summary>
    public int? CrashAtCall { get; set; }

    /// <summary>Decides a fault for each call (after the crash check); null: none.</summary>
    public Func<IoCall, IoFault>? Faults { get; set; }

    /// <summary>
    /// The disk's size: a write, preallocation or size change that would make the files' current
    /// lengths add up to more fails with <see cref="DiskFullException"/> and changes nothing, as on
    /// a real full file system (preallocated space is held, so writes inside it always fit). Null:
    /// unlimited.
    /// </summary>
    public long? Capacity { get; set; }

    /// <summary>The most the files' lengths added up to at any instant (to size a <see cref="Capacity"/>).</summary>
    public long PeakUsedBytes { get; private set; }

    /// <summary>What the files' current lengths add up to now.</summary>
    public long UsedBytes
    {
        get
        {
            lock (_lock)
            {
                return Used();
            }
        }
    }

    /// <summary>How many mutating calls were made (the crash points of a run).</summary>
    public int CallCount
    {
        get
        {
            lock (_lock)
            {
                return _calls.Count;
            }
        }
    }

    /// <summary>Every mutating call so far, in order.</summary>
    public IReadOnlyList<IoCall> Calls
    {
        get
        {
            lock (_lock)
            {
                return [.. _calls];
            }
        }
    }

    /// <summary>Whether the machine lost power (CrashAtCall was reached).</summary>
    public bool HasCrashed
    {
        get
        {
            lock (_lock)
            {
                return _crashCall != null;
            }
        }
    }

    /// <summary>The call at which the machine lost power.</summary>
    public IoCall? CrashCall
    {
        get
        {
            lock (_lock)
            {
                return _crashCall;
            }
        }
    }

    public IStorageFile Open(string path, FileOpenMode mode)
    {
        path = Normalize(path);
        lock (_lock)
        {
            if (_files.TryGetValue(path, out var existing))
            {
                if (mode == FileOpenMode.CreateNew)
                {
                    throw new IOException($"The file '{path}' already exists.");
                }

                return new CrashFile(this, existing, _memory.Open(path, FileOpenMode.OpenExisting));
            }

            if (mode == FileOpenMode.OpenExisting)
            {
                throw new FileNotFoundException($"No file '{path}'.", path);
            }

            var crash = Begin(IoCallKind.CreateFile, path, out var call, out var fault);
            ThrowFault(fault, call);
            var file = new SimulatedFile(_nextFileId++, path, new FileImage());
            _files[path] = file;
            _pendingDirectoryChanges.Add(new DirectoryChange(_sequence++, ParentOf(path), DirectoryChangeKind.CreateFile, path, null, file));
            var handle = _memory.Open(path, FileOpenMode.CreateNew);
            if (crash)
            {
                handle.Dispose();
                throw new SimulatedPowerLossException(call);
            }

            return new CrashFile(this, file, handle);
        }
    }

    public bool FileExists(string path)
    {
        lock (_lock)
        {
            return _files.ContainsKey(Normalize(path));
        }
    }

    public void DeleteFile(string path)
    {
        path = Normalize(path);
        lock (_lock)
        {
            if (!_files.TryGetValue(path, out var file))
            {
                return;
            }

            var crash = Begin(IoCallKind.DeleteFile, path, out var call, out var fault);
            ThrowFault(fault, call);
            _files.Remove(path);
            _memory.DeleteFile(path);
            _pendingDirectoryChanges.Add(new DirectoryChange(_sequence++, ParentOf(path), DirectoryChangeKind.DeleteFile, path, null, file));
            ThrowIfCrash(crash, call);
        }
    }

    public void MoveFile(string source, string destination)
    {
        source = Normalize(source);
        destination = Normalize(destination);
        lock (_lock)
        {
            if (!_files.TryGetValue(source, out var file))
            {
                throw new FileNotFoundException($"No file '{source}'.", source);
            }

            var crash = Begin(IoCallKind.MoveFile, source, out var call, out var fault, target: destination);
            ThrowFault(fault, call);
            _files.Remove(source);
            _files[destination] = file;
            file.Path = destination;
            _memory.MoveFile(source, destination);
            // A rename across directories (compaction's swap) is one change, of the destination
            // directory: durable when that directory is synced, atomic either way (ext4 and XFS
            // journal a rename as one transaction; Voron syncs both directories all the same).
            _pendingDirectoryChanges.Add(new DirectoryChange(_sequence++, ParentOf(destination), DirectoryChangeKind.MoveFile, source, destination, file));
            ThrowIfCrash(crash, call);
        }
    }

    public IReadOnlyList<string> ListFiles(string directory, string pattern) => _memory.ListFiles(Normalize(directory), pattern);

    public void CreateDirectory(string path)
    {
        path = Normalize(path);
        lock (_lock)
        {
            var missing = new List<string>();
            for (var d = path; !_directories.Contains(d); d = ParentOf(d))
            {
                missing.Insert(0, d);
            }

            foreach (var directory in missing)
            {
                var crash = Begin(IoCallKind.CreateDirectory, directory, out var call, out var fault);
                ThrowFault(fault, call);
                _directories.Add(directory);
                _pendingDirectoryChanges.Add(new DirectoryChange(_sequence++, ParentOf(directory), DirectoryChangeKind.CreateDirectory, directory, null, null));
                ThrowIfCrash(crash, call);
            }
        }
    }

    public void SyncDirectory(string path)
    {
        path = Normalize(path);
        lock (_lock)
        {
            var crash = Begin(IoCallKind.SyncDirectory, path, out var call, out var fault);
            ThrowIfCrash(crash, call); // a sync that never returned made nothing durable for sure
            ThrowFault(fault, call);
            foreach (var change in _pendingDirectoryChanges.Where(c => c.Directory == path).ToList())
            {
                change.ApplyTo(_durableFiles, _durableDirectories);
                _pendingDirectoryChanges.Remove(change);
            }
        }
    }

    public IDisposable LockExclusive(string path) => _memory.LockExclusive(Normalize(path));

    /// <summary>Releases the current bytes of every file (open handles keep theirs until closed).</summary>
    public void Dispose()
    {
        lock (_lock)
        {
            foreach (var path in _files.Keys)
            {
                _memory.DeleteFile(path);
            }

            _files.Clear();
        }
    }

    internal void Write(SimulatedFile file, IStorageFile current, long offset, byte[] bytes)
    {
        lock (_lock)
        {
            var crash = Begin(IoCallKind.Write, file.Path, out var call, out var fault, offset, bytes.Length);
            if (fault == IoFault.PartialWriteThenDiskFull)
            {
                var sectors = (bytes.Length + 511) / 512;
                var written = Math.Min(bytes.Length, _random.Next(sectors) * 512);
                if (written > 0)
                {
                    current.Write(offset, bytes.AsSpan(0, written));
                    file.Record(new PendingWrite(_sequence++, offset, bytes[..written]));
                }

                throw new DiskFullException($"injected: no space left on device after {written} of {bytes.Length} bytes at {call}");
            }

            ThrowFault(fault, call);
            Allocate(current, offset + bytes.Length, call);
            current.Write(offset, bytes);
            file.Record(new PendingWrite(_sequence++, offset, bytes));
            ThrowIfCrash(crash, call);
        }
    }

    internal void FlushData(SimulatedFile file, IStorageFile current)
    {
        lock (_lock)
        {
            var crash = Begin(IoCallKind.FlushData, file.Path, out var call, out var fault);
            ThrowIfCrash(crash, call); // an fdatasync that never returned made nothing durable for sure
            if (fault is IoFault.FsyncFailure or IoFault.IoError or IoFault.FsyncFailureLosingTheWrites)
            {
                file.LoseUnsynced(new PowerLossPolicy(fault == IoFault.FsyncFailureLosingTheWrites ? DamageModel.DropAll : DamageModel.TornSectors, _random.Next()));
                throw new IOException($"injected: fdatasync failed (EIO) at {call}; unsynced data of the file may be lost");
            }

            if (fault == IoFault.LyingFsync)
            {
                return;
            }

            ThrowFault(fault, call);
            current.FlushData();
            file.Sync();
        }
    }

    internal void Resize(SimulatedFile file, IStorageFile current, long length, bool growOnly)
    {
        lock (_lock)
        {
            var crash = Begin(growOnly ? IoCallKind.Preallocate : IoCallKind.SetLength, file.Path, out var call, out var fault, length: length);
            ThrowFault(fault, call);
            Allocate(current, length, call);
            if (growOnly)
            {
                current.Preallocate(length);
            }
            else
            {
                current.SetLength(length);
            }

            file.Record(new PendingResize(_sequence++, length, growOnly));
            ThrowIfCrash(crash, call);
        }
    }

    /// <summary>Counts a call; returns whether it is the crash point. Throws if the machine is already dead. Under _lock.</summary>
    private bool Begin(IoCallKind kind, string path, out IoCall call, out IoFault fault, long offset = 0, long length = 0, string? target = null)
    {
        if (_crashCall is { } crashed)
        {
            throw new SimulatedPowerLossException(crashed);
        }

        call = new IoCall(_calls.Count, kind, path, offset, length, target);
        _calls.Add(call);
        if (CrashAtCall == call.Index)
        {
            _crashCall = call;
            fault = IoFault.None;
            return true;
        }

        fault = Faults?.Invoke(call) ?? IoFault.None;
        return false;
    }

    /// <summary>Capacity: fails the call if growing <paramref name="current"/> to <paramref name="end"/> bytes does not fit. Under _lock.</summary>
    private void Allocate(IStorageFile current, long end, IoCall call)
    {
        var growth = Math.Max(0, end - current.Length);
        var used = Used();
        if (Capacity is { } capacity && used + growth > capacity)
        {
            throw new DiskFullException($"simulated: no space left on device at {call} ({used} of {capacity} bytes used, {growth} more asked)", current.Path, growth);
        }

        PeakUsedBytes = Math.Max(PeakUsedBytes, used + growth);
    }

    private long Used()
    {
        long used = 0;
        foreach (var path in _files.Keys)
        {
            using var handle = _memory.Open(path, FileOpenMode.OpenExisting);
            used += handle.Length;
        }

        return used;
    }

    private static void ThrowFault(IoFault fault, IoCall call)
    {
        switch (fault)
        {
            case IoFault.None:
                return;
            case IoFault.DiskFull or IoFault.PartialWriteThenDiskFull:
                throw new DiskFullException($"injected: no space left on device at {call}");
            default:
                throw new IOException($"injected: I/O error (EIO) at {call}");
        }
    }

    private static void ThrowIfCrash(bool crash, IoCall call)
    {
        if (crash)
        {
            throw new SimulatedPowerLossException(call);
        }
    }

    internal static string Normalize(string path) => path.Replace('\\', '/').TrimEnd('/') is { Length: > 0 } p ? p : "/";

    internal static string ParentOf(string path)
    {
        var slash = path.LastIndexOf('/');
        return slash <= 0 ? "/" : path[..slash];
    }
}
