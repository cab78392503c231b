using System.Buffers.Binary;
using Voron.Sealing;

namespace Voron.Journal;

/// <summary>
/// Seals and opens the stored payload of journal records under a store's journal subkey (SL8; the
/// Sealed flag in the FORMAT block of JournalRecord.cs). The AAD is the record's 128-byte header
/// with HeaderChecksum read as zero, then the journal file's number: a sealed payload moved to
/// another record, another transaction or another file does not open. One instance per writer or
/// per reader: it holds one AEAD, which one thread at a time uses (SL6); the writer's lock covers it.
/// </summary>
internal sealed class JournalSealing : IDisposable
{
    private const int AadSize = JournalRecord.HeaderSize + sizeof(long);

    private readonly Aead _aead;
    private readonly RecordSeal _seal;

    /// <summary>Seals with <paramref name="key"/>'s journal subkey and a nonce source of this process (SL1).</summary>
    public JournalSealing(StoreKey key)
        : this(key, new NonceSource())
    {
    }

    internal JournalSealing(StoreKey key, NonceSource nonces)
    {
        ArgumentNullException.ThrowIfNull(key);
        _aead = key.CreateJournalAead();
        _seal = new RecordSeal(_aead, nonces);
    }

    /// <summary>Where, in a record, the payload goes before <see cref="Seal"/> seals it in place: after the header and the nonce.</summary>
    public const int PayloadOffset = JournalRecord.HeaderSize + SealFormat.RecordCiphertextOffset;

    /// <summary>
    /// Seals the <paramref name="payloadLength"/> bytes at <see cref="PayloadOffset"/> of
    /// <paramref name="record"/> in place, whose header fields are written (its checksum not yet),
    /// for journal file <paramref name="fileNumber"/>. The stored payload is then
    /// <c>payloadLength + 28</c> bytes from the header's end.
    /// </summary>
    public void Seal(Span<byte> record, int payloadLength, long fileNumber)
    {
        Span<byte> aad = stackalloc byte[AadSize];
        WriteAad(aad, record, fileNumber);
        var sealedRange = record.Slice(JournalRecord.HeaderSize, RecordSeal.SealedLength(payloadLength));
        _seal.Seal(sealedRange[RecordSeal.PayloadRange(sealedRange.Length)], sealedRange, aad);
    }

    /// <summary>
    /// Opens the stored payload <paramref name="stored"/> of the record whose header is
    /// <paramref name="header"/> (128 bytes as read, trailers verified) into <paramref name="payload"/>
    /// (<c>stored.Length - 28</c> bytes), or throws CorruptionException naming the file, offset and
    /// record: the trailers prove these bytes were written so (SL8).
    /// </summary>
    public void Open(ReadOnlySpan<byte> header, ReadOnlySpan<byte> stored, Span<byte> payload, long fileNumber, string file, long offset, long transactionId)
    {
        Span<byte> aad = stackalloc byte[AadSize];
        WriteAad(aad, header, fileNumber);
        _seal.Open(stored, payload, aad, file, offset, $"the sealed payload of record tx {transactionId}");
    }

    public void Dispose() => _aead.Dispose();

    private static void WriteAad(Span<byte> aad, ReadOnlySpan<byte> header, long fileNumber)
    {
        header[..JournalRecord.HeaderSize].CopyTo(aad);
        aad.Slice(JournalRecord.HeaderChecksumOffset, sizeof(uint)).Clear();
        BinaryPrimitives.WriteInt64LittleEndian(aad[JournalRecord.HeaderSize..], fileNumber);
    }
}
