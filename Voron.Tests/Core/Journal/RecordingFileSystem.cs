namespace Voron.Tests.Core.Journal;

/// <summary>
/// Wraps a file system, logging every mutating call as a line ("Write /j/x.journal 4096 12288")
/// and failing the first call whose line matches <see cref="FailWhen"/> with an IOException.
/// </summary>
internal sealed class RecordingFileSystem(IFileSystem inner) : IFileSystem
{
    public List<string> Log { get; } = [];

    public Func<string, bool>? FailWhen { get; set; }

    /// <summary>The exception a call chosen by <see cref="FailWhen"/> throws; null: an <see cref="IOException"/>.</summary>
    public Func<string, Exception>? FailWith { get; set; }

    /// <summary>Runs before each call is recorded, outside the log's lock (a test may block a background call here).</summary>
    public Action<string>? BeforeCall { get; set; }

    public void Record(string line)
    {
        BeforeCall?.Invoke(line);
        // Background tasks (the flusher, the lazy journal sync) record beside the test's thread.
        lock (Log)
        {
            if (FailWhen?.Invoke(line) == true)
            {
                FailWhen = null;
                throw FailWith?.Invoke(line) ?? new IOException($"injected failure: {line}");
            }

            Log.Add(line);
        }
    }

    public IStorageFile Open(string path, FileOpenMode mode)
    {
        if (mode == FileOpenMode.CreateNew)
        {
            Record($"Create {path}");
        }

        return new RecordingFile(this, inner.Open(path, mode));
    }

    public bool FileExists(string path) => inner.FileExists(path);

    public void DeleteFile(string path)
    {
        Record($"Delete {path}");
        inner.DeleteFile(path);
    }

    public void MoveFile(string source, string destination)
    {
        Record($"Move {source} {destination}");
        inner.MoveFile(source, destination);
    }

    public IReadOnlyList<string> ListFiles(string directory, string pattern) => inner.ListFiles(directory, pattern);

    public void CreateDirectory(string path) => inner.CreateDirectory(path);

    public void SyncDirectory(string path)
    {
        Record($"SyncDirectory {path}");
        inner.SyncDirectory(path);
    }

    public IDisposable LockExclusive(string path) => inner.LockExclusive(path);
}
