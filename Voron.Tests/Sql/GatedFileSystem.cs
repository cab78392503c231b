namespace Voron.Tests.Sql;

/// <summary>
/// An in-memory file system whose journal flushes (FlushData on files under journal/) can be
/// held back on purpose: a commit is then submitted but not durable for as long as the test
/// wants, and can be made to fail. Everything else passes straight through.
/// </summary>
internal sealed class GatedFileSystem : IFileSystem
{
    private readonly InMemoryFileSystem _inner = new(4L << 30);
    private readonly object _sync = new();
    private bool _closed;
    private Exception? _failWith;
    private int _waiting;

    /// <summary>Journal flushes that are waiting at the closed gate.</summary>
    public int Waiting
    {
        get
        {
            lock (_sync)
            {
                return _waiting;
            }
        }
    }

    /// <summary>From now on journal flushes wait until <see cref="Open"/> or <see cref="Fail"/>.</summary>
    public void Close()
    {
        lock (_sync)
        {
            _closed = true;
            _failWith = null;
        }
    }

    /// <summary>Journal flushes go through (and succeed) again.</summary>
    public void Open()
    {
        lock (_sync)
        {
            _closed = false;
            _failWith = null;
            Monitor.PulseAll(_sync);
        }
    }

    /// <summary>Every waiting (and later) journal flush fails with an I/O error, as a dying disk's fsync would.</summary>
    public void Fail()
    {
        lock (_sync)
        {
            _closed = false;
            _failWith = new IOException("Injected fsync failure (the disk lost the journal write).");
            Monitor.PulseAll(_sync);
        }
    }

    /// <summary>Waits until <paramref name="count"/> journal flushes are held at the gate.</summary>
    public void WaitForWaiting(int count)
    {
        lock (_sync)
        {
            var deadline = DateTime.UtcNow.AddSeconds(30);
            while (_waiting < count)
            {
                if (!Monitor.Wait(_sync, deadline - DateTime.UtcNow) && DateTime.UtcNow >= deadline)
                {
                    throw new TimeoutException($"{_waiting} journal flushes reached the gate, expected {count}.");
                }
            }
        }
    }

    private void Gate()
    {
        lock (_sync)
        {
            _waiting++;
            Monitor.PulseAll(_sync);
            while (_closed)
            {
                Monitor.Wait(_sync);
            }

            _waiting--;
            if (_failWith != null)
            {
                throw _failWith;
            }
        }
    }

    public IStorageFile Open(string path, FileOpenMode mode)
    {
        var file = _inner.Open(path, mode);
        return path.Contains("/journal/", StringComparison.Ordinal) ? new GatedFile(file, this) : file;
    }

    public bool FileExists(string path) => _inner.FileExists(path);

    public void DeleteFile(string path) => _inner.DeleteFile(path);

    public void MoveFile(string source, string destination) => _inner.MoveFile(source, destination);

    public IReadOnlyList<string> ListFiles(string directory, string pattern) => _inner.ListFiles(directory, pattern);

    public void CreateDirectory(string path) => _inner.CreateDirectory(path);

    public void SyncDirectory(string path) => _inner.SyncDirectory(path);

    public IDisposable LockExclusive(string path) => _inner.LockExclusive(path);

    private sealed class GatedFile(IStorageFile inner, GatedFileSystem gate) : DelegatingStorageFile(inner)
    {
        public override void FlushData()
        {
            gate.Gate();
            Inner.FlushData();
        }
    }
}
