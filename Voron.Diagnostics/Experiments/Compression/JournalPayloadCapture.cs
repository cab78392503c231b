using System.Buffers.Binary;
using Voron.Journal;
using Voron.Platform;
using Voron.Platform.Memory;

namespace Voron.Diagnostics.Experiments.Compression;

/// <summary>
/// An in-memory file system that keeps a copy of the payload of every journal record written
/// through it, so the compression experiment can run real engine workloads and then compress
/// exactly the bytes the journal would have compressed. Run the store with
/// <c>JournalCompression = false</c>: each record is then one write (J3 in JournalWriter.cs) whose
/// header says how many payload bytes follow it (spread over 512-byte sectors, each with a trailer). Writes that are not a record (the zeros the
/// writer puts ahead of the log, the data file, headers) pass through unrecorded.
/// </summary>
internal sealed class JournalPayloadCapture : IFileSystem, IDisposable
{
    private readonly InMemoryFileSystem _inner = new();
    private readonly List<byte[]> _payloads = [];

    /// <summary>The payloads of the records written so far, in write order.</summary>
    public IReadOnlyList<byte[]> Payloads => _payloads;

    /// <summary>Deletes the store's in-memory files (their memory goes back to the OS).</summary>
    public void Dispose() => _inner.Dispose();

    internal void Inspect(string path, ReadOnlySpan<byte> write)
    {
        // A record (format version 2) is framed in 512-byte sectors of 508 body bytes and a
        // trailer; its header sits in sector 0's body. The capture does not know the store's id,
        // so it does not verify the checksums: the engine wrote these bytes a moment ago.
        if (!path.EndsWith(".journal", StringComparison.Ordinal) || write.Length < JournalRecord.SectorSize ||
            BinaryPrimitives.ReadUInt64LittleEndian(write[JournalRecord.MagicOffset..]) != JournalRecord.Magic)
        {
            return;
        }

        var flags = (JournalRecordFlags)BinaryPrimitives.ReadUInt16LittleEndian(write[JournalRecord.FlagsOffset..]);
        var stored = BinaryPrimitives.ReadInt64LittleEndian(write[JournalRecord.StoredPayloadSizeOffset..]);
        var bodyLength = JournalRecord.HeaderSize + stored;
        var sectors = (bodyLength + JournalRecord.SectorDataSize - 1) / JournalRecord.SectorDataSize;
        if ((flags & JournalRecordFlags.Lz4Compressed) != 0 || stored < 0 || sectors * JournalRecord.SectorSize > write.Length)
        {
            return;
        }

        var body = write[..(int)(sectors * JournalRecord.SectorSize)].ToArray();
        JournalRecord.Unframe(body, (int)bodyLength);
        lock (_payloads)
        {
            _payloads.Add(body.AsSpan(JournalRecord.HeaderSize, (int)stored).ToArray());
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
    private sealed class CapturingFile(JournalPayloadCapture owner, IStorageFile inner) : DelegatingStorageFile(inner)
    {
        public override void Write(long offset, ReadOnlySpan<byte> source)
        {
            owner.Inspect(Path, source);
            Inner.Write(offset, source);
        }
    }
}
