using System.Collections.Concurrent;

namespace Voron.Platform.Memory;

/// <summary>
/// Files that live in this process's memory: the environment's in-memory mode, and the base the
/// crash simulator builds on. Paths are plain strings; directories exist implicitly. Every file
/// reserves <see cref="ReservePerFile"/> bytes of address space up front (committed lazily by the
/// OS), so its bytes never move and a read-only "mapping" is the file's own memory. Dispose it
/// when done: that deletes every file, and each one's memory goes back to the OS once its last
/// handle is closed (there is no finalizer, see InMemoryFile).
/// </summary>
public sealed class InMemoryFileSystem : IFileSystem, IDisposable
{
    private readonly ConcurrentDictionary<string, InMemoryFile> _files = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, byte> _locks = new(StringComparer.Ordinal);

    /// <summary>An empty file system whose files may each grow to <paramref name="reservePerFile"/> bytes (default 16 GiB of address space, committed only as written).</summary>
    public InMemoryFileSystem(long reservePerFile = 16L << 30)
    {
        ReservePerFile = reservePerFile;
    }

    /// <summary>The largest size any file may reach.</summary>
    public long ReservePerFile { get; }

    /// <inheritdoc/>
    public IStorageFile Open(string path, FileOpenMode mode)
    {
        var key = Normalize(path);
        switch (mode)
        {
            case FileOpenMode.OpenExisting:
                return _files.TryGetValue(key, out var existing)
                    ? existing.OpenHandle()
                    : throw new FileNotFoundException($"No file '{path}'.", path);
            case FileOpenMode.CreateNew:
                var created = new InMemoryFile(key, ReservePerFile);
                if (!_files.TryAdd(key, created))
                {
                    created.Release();
                    throw new IOException($"The file '{path}' already exists.");
                }

                return created.OpenHandle();
            default:
                return _files.GetOrAdd(key, k => new InMemoryFile(k, ReservePerFile)).OpenHandle();
        }
    }

    /// <summary>How many files exist.</summary>
    internal int FileCount => _files.Count;

    /// <inheritdoc/>
    public bool FileExists(string path) => _files.ContainsKey(Normalize(path));

    /// <inheritdoc/>
    public void DeleteFile(string path)
    {
        if (_files.TryRemove(Normalize(path), out var file))
        {
            file.Release();
        }
    }

    /// <summary>Deletes every file; a handle still open keeps its file's memory until it is closed. The file system stays usable (empty).</summary>
    public void Dispose()
    {
        foreach (var path in _files.Keys)
        {
            DeleteFile(path);
        }
    }

    /// <inheritdoc/>
    public void MoveFile(string source, string destination)
    {
        if (!_files.TryRemove(Normalize(source), out var file))
        {
            throw new FileNotFoundException($"No file '{source}'.", source);
        }

        file.Rename(Normalize(destination));
        if (_files.TryRemove(file.Path, out var replaced))
        {
            replaced.Release();
        }

        _files[file.Path] = file;
    }

    /// <inheritdoc/>
    public IReadOnlyList<string> ListFiles(string directory, string pattern)
    {
        var prefix = Normalize(directory).TrimEnd('/') + "/";
        var star = pattern.IndexOf('*', StringComparison.Ordinal);
        var (head, tail) = star < 0 ? (pattern, "") : (pattern[..star], pattern[(star + 1)..]);
        var names = _files.Keys
            .Where(p => p.StartsWith(prefix, StringComparison.Ordinal) && !p[prefix.Length..].Contains('/', StringComparison.Ordinal))
            .Where(p =>
            {
                var name = p[prefix.Length..];
                return star < 0 ? name == pattern : name.Length >= head.Length + tail.Length &&
                    name.StartsWith(head, StringComparison.Ordinal) && name.EndsWith(tail, StringComparison.Ordinal);
            })
            .ToList();
        names.Sort(StringComparer.Ordinal);
        return names;
    }

    /// <summary>Does nothing (directories are implicit) unless <paramref name="path"/> is a file, which is an <see cref="IOException"/>.</summary>
    public void CreateDirectory(string path)
    {
        // Directories are implicit: a file's path names its directory. A file cannot be one.
        var key = Normalize(path).TrimEnd('/');
        if (_files.ContainsKey(key))
        {
            throw new IOException($"'{path}' is a file, not a directory: a store is a directory. Pass a directory path.");
        }
    }

    /// <summary>Does nothing: nothing here outlives the process.</summary>
    public void SyncDirectory(string path)
    {
        // Nothing to make durable: the in-memory mode loses everything with the process.
    }

    /// <inheritdoc/>
    public IDisposable LockExclusive(string path)
    {
        var key = Normalize(path);
        if (!_locks.TryAdd(key, 0))
        {
            throw new StoreLockedException(path);
        }

        return new Releaser(() => _locks.TryRemove(key, out _));
    }

    private static string Normalize(string path) => path.Replace('\\', '/');

    private sealed class Releaser(Action release) : IDisposable
    {
        private Action? _release = release;

        public void Dispose() => Interlocked.Exchange(ref _release, null)?.Invoke();
    }
}
