using System.Buffers.Binary;
using Voron.Header;
using Voron.Journal;
using Voron.Platform;

namespace Voron.Testing.Journal;

/// <summary>Reads and edits the journal records of a store on a file system, as a (hypothetical) writer of that store would write them.</summary>
internal static class StoredRecords
{
    /// <summary>The store id in the newest header copy of the store at <paramref name="directory"/>.</summary>
    public static ulong StoreId(IFileSystem fileSystem, string directory = "/store") =>
        HeaderFile.ReadNewest(fileSystem, new StoreLayout(directory))?.StoreId ?? throw new InvalidOperationException("no valid header copy");

    /// <summary>
    /// Edits the body (header and stored payload, as one run of bytes) of the record at
    /// <paramref name="start"/> of the store's journal, then re-stamps its header checksum and
    /// sector trailers with the store's id, so the result is a record the store could have written.
    /// </summary>
    public static void Edit(IFileSystem fileSystem, JournalPosition start, Action<Span<byte>> editBody, string directory = "/store")
    {
        var storeId = StoreId(fileSystem, directory);
        var path = JournalFiles.PathOf(Path.Combine(directory, "journal"), start.FileNumber);
        using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
        var header = new byte[JournalRecord.HeaderSize];
        file.Read(start.Offset, header);
        var size = (int)JournalRecord.RecordSize(BinaryPrimitives.ReadInt64LittleEndian(header.AsSpan(JournalRecord.StoredPayloadSizeOffset)));
        var record = new byte[size];
        file.Read(start.Offset, record);
        var bodyLength = size / JournalRecord.SectorSize * JournalRecord.SectorDataSize;
        JournalRecord.Unframe(record, bodyLength);
        editBody(record.AsSpan(0, bodyLength));
        var head = record.AsSpan(0, JournalRecord.HeaderSize);
        BinaryPrimitives.WriteUInt32LittleEndian(head[JournalRecord.HeaderChecksumOffset..], JournalRecord.ComputeHeaderChecksum(head, storeId, start.FileNumber));
        JournalRecord.Frame(record, bodyLength, JournalRecord.SectorSeed(storeId, start.FileNumber, JournalRecord.GetTransactionId(head)));
        file.Write(start.Offset, record);
    }
}
