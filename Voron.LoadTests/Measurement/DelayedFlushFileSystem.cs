using Voron.Platform;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// Voron's file I/O interface with a <see cref="SimulatedDisk"/>'s delay after every durable flush
/// (<see cref="IStorageFile.FlushData"/> and <see cref="SyncDirectory"/>); everything else passes
/// straight through. The delay comes after the real flush returns: the data is as durable as
/// without it, only later acknowledged.
/// </summary>
internal sealed class DelayedFlushFileSystem(IFileSystem inner, SimulatedDisk disk) : IFileSystem
{
    private long _delayedFlushes;

    /// <summary>How many flushes have been delayed (each file's and the directories').</summary>
    public long DelayedFlushes => Interlocked.Read(ref _delayedFlushes);

    internal void Delay()
    {
        Interlocked.Increment(ref _delayedFlushes);
        disk.Delay();
    }

    public IStorageFile Open(string path, FileOpenMode mode) => new DelayedFlushFile(this, inner.Open(path, mode));

    public bool FileExists(string path) => inner.FileExists(path);

    public void DeleteFile(string path) => inner.DeleteFile(path);

    public void MoveFile(string source, string destination) => inner.MoveFile(source, destination);

    public IReadOnlyList<string> ListFiles(string directory, string pattern) => inner.ListFiles(directory, pattern);

    public void CreateDirectory(string path) => inner.CreateDirectory(path);

    public void SyncDirectory(string path)
    {
        inner.SyncDirectory(path);
        Delay();
    }

    public IDisposable LockExclusive(string path) => inner.LockExclusive(path);
}
