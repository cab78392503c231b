using System.Collections.Concurrent;
using Voron.Platform;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// Wraps a file system and counts the bytes written to each file (by path), so an experiment can
/// say how much went to the journal and how much to the data file. Reads and everything else pass
/// straight through.
/// </summary>
internal sealed class CountingFileSystem(IFileSystem inner) : IFileSystem
{
    private readonly ConcurrentDictionary<string, long> _written = new(StringComparer.Ordinal);

    /// <summary>Bytes written so far to every file whose path matches <paramref name="predicate"/>.</summary>
    public long BytesWritten(Func<string, bool> predicate) => _written.Where(f => predicate(f.Key)).Sum(f => f.Value);

    internal void Count(string path, long bytes) => _written.AddOrUpdate(path, bytes, (_, total) => total + bytes);

    public IStorageFile Open(string path, FileOpenMode mode) => new CountingFile(this, inner.Open(path, mode));

    public bool FileExists(string path) => inner.FileExists(path);

    public void DeleteFile(string path) => inner.DeleteFile(path);

    public void MoveFile(string source, string destination) => inner.MoveFile(source, destination);

    public IReadOnlyList<string> ListFiles(string directory, string pattern) => inner.ListFiles(directory, pattern);

    public void CreateDirectory(string path) => inner.CreateDirectory(path);

    public void SyncDirectory(string path) => inner.SyncDirectory(path);

    public IDisposable LockExclusive(string path) => inner.LockExclusive(path);
}
