using Voron.Journal;
using Voron.Platform;
using Voron.Platform.Memory;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// An in-memory file system that keeps a copy of the payload of every journal record written
/// through it, so the compression experiment can run real engine workloads and then compress
/// exactly the bytes the journal would have compressed. Run the store with
/// <c>JournalCompression = false</c>: each record is then one write (J3 in JournalWriter.cs) whose
/// header says how many payload bytes follow it. Writes that are not a record (the zeros the
/// writer puts ahead of the log, the data file, headers) pass through unrecorded.
/// </summary>
internal sealed class JournalPayloadCapture : IFileSystem
{
    private readonly InMemoryFileSystem _inner = new();
    private readonly List<byte[]> _payloads = [];

    /// <summary>The payloads of the records written so far, in write order.</summary>
    public IReadOnlyList<byte[]> Payloads => _payloads;

    internal void Inspect(string path, ReadOnlySpan<byte> write)
    {
        if (!path.EndsWith(".journal", StringComparison.Ordinal) || !JournalRecordHeader.TryRead(write, out var header) ||
            (header.Flags & JournalRecordFlags.Lz4Compressed) != 0 ||
            JournalRecord.HeaderSize + header.StoredPayloadSize > write.Length)
        {
            return;
        }

        lock (_payloads)
        {
            _payloads.Add(write.Slice(JournalRecord.HeaderSize, (int)header.StoredPayloadSize).ToArray());
        }
    }

    public IStorageFile Open(string path, FileOpenMode mode) => new CapturingFile(this, _inner.Open(path, mode));

    public bool FileExists(string path) => _inner.FileExists(path);

    public void DeleteFile(string path) => _inner.DeleteFile(path);

    public void MoveFile(string source, string destination) => _inner.MoveFile(source, destination);

    public IReadOnlyList<string> ListFiles(string directory, string pattern) => _inner.ListFiles(directory, pattern);

    public void CreateDirectory(string path) => _inner.CreateDirectory(path);

    public void SyncDirectory(string path) => _inner.SyncDirectory(path);

    public IDisposable LockExclusive(string path) => _inner.LockExclusive(path);

    /// <summary>One file of a <see cref="JournalPayloadCapture"/>: shows every single-buffer write to its owner.</summary>
    private sealed class CapturingFile(JournalPayloadCapture owner, IStorageFile inner) : IStorageFile
    {
        public string Path => inner.Path;

        public long Length => inner.Length;

        public int Read(long offset, Span<byte> destination) => inner.Read(offset, destination);

        public void Write(long offset, ReadOnlySpan<byte> source)
        {
            owner.Inspect(Path, source);
            inner.Write(offset, source);
        }

        public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers) => inner.Write(offset, buffers);

        public void FlushData() => inner.FlushData();

        public void Preallocate(long length) => inner.Preallocate(length);

        public void SetLength(long length) => inner.SetLength(length);

        public IMappedRegion MapReadOnly(long reserveLength) => inner.MapReadOnly(reserveLength);

        public void Dispose() => inner.Dispose();
    }
}
