namespace Voron.Journal;

/// <summary>Where the log ends: D3 (rotation) and D4 (acknowledged records after a broken slot)
/// of the pseudo-code in JournalReader.cs.</summary>
internal sealed partial class JournalReader
{
    /// <summary>Bytes read at a time while scanning for intact headers (D4).</summary>
    private const int ScanChunkSize = 1 << 20;

    private byte[]? _scanBuffer;

    /// <summary>D3: whether journal file <paramref name="fileNumber"/> + 1 exists and its first
    /// slot is an intact header of record <paramref name="expected"/>.</summary>
    private bool NextFileStartsWith(long fileNumber, long expected)
    {
        var next = OpenFile(fileNumber + 1);
        if (next is null || next.Length < JournalRecord.HeaderSize)
        {
            return false;
        }

        Span<byte> header = stackalloc byte[JournalRecord.HeaderSize];
        ReadExactly(next, 0, header);
        return JournalRecordHeader.TryRead(header, out var parsed) && parsed.TransactionId == expected;
    }

    /// <summary>
    /// D4: throws if any 4096-aligned slot from <paramref name="from"/> to the end of the file at
    /// <paramref name="broken"/>, or anywhere in a later journal file, holds an intact header with
    /// tx &gt;= <paramref name="expected"/>. The exception names the broken slot's file and offset.
    /// </summary>
    private void ThrowIfAcknowledgedRecordFollows(JournalPosition broken, long from, long expected, string whatIsThere)
    {
        foreach (var number in _fileNumbers)
        {
            if (number < broken.FileNumber)
            {
                continue;
            }

            var found = FindIntactHeader(number, number == broken.FileNumber ? from : 0, expected);
            if (found is var (offset, transactionId))
            {
                var where = number == broken.FileNumber ? $"offset {offset}" : $"offset {offset} of '{PathOf(number)}'";
                throw new CorruptionException(PathOf(broken.FileNumber), broken.Offset,
                    $"{whatIsThere}, but record tx {transactionId} follows at {where}: " +
                    "acknowledged transactions would be lost (a record is written only after every earlier one is durable, J3)");
            }
        }
    }

    /// <summary>The first slot at or after <paramref name="from"/> in journal file
    /// <paramref name="fileNumber"/> with an intact header and tx &gt;= <paramref name="expected"/>.</summary>
    private (long Offset, long TransactionId)? FindIntactHeader(long fileNumber, long from, long expected)
    {
        var file = OpenFile(fileNumber);
        if (file is null)
        {
            return null;
        }

        _scanBuffer ??= new byte[ScanChunkSize];
        var length = file.Length;
        for (var chunkStart = from; length - chunkStart >= JournalRecord.HeaderSize; chunkStart += ScanChunkSize)
        {
            var chunk = _scanBuffer.AsSpan(0, (int)Math.Min(ScanChunkSize, length - chunkStart));
            ReadExactly(file, chunkStart, chunk);
            for (var at = 0; chunk.Length - at >= JournalRecord.HeaderSize; at += JournalRecord.Alignment)
            {
                // A Lazy record was written without a flush, so the OS may have written it back
                // before an earlier one: its presence proves nothing about the broken record.
                if (JournalRecordHeader.TryRead(chunk.Slice(at, JournalRecord.HeaderSize), out var header) && header.TransactionId >= expected &&
                    (header.Flags & JournalRecordFlags.Lazy) == 0)
                {
                    return (chunkStart + at, header.TransactionId);
                }
            }
        }

        return null;
    }
}
