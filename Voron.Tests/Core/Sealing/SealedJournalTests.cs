using Voron.Sealing;
using Voron.Tests.Core.Journal;
using static Voron.Tests.Core.Sealing.SealingFixtures;

namespace Voron.Tests.Core.Sealing;

/// <summary>
/// Journal records sealed after compression (SL8; the Sealed flag in JournalRecord.cs): recovery
/// replays them, tells a torn tail from damage exactly as for plaintext records, and reports an
/// intact record whose payload was changed (its checksums recomputed) as corruption.
/// </summary>
public sealed class SealedJournalTests : IDisposable
{
    private static readonly byte[] Marker = "MARKER: Ada Lovelace, 12 St James's Square"u8.ToArray();

    private readonly StoreKey key = StoreKey(SealFormat.Preferred, storeId: JournalHarness.StoreId);
    private readonly List<IDisposable> owned = [];

    [Fact]
    public void Sealed_records_compressed_or_not_recover_to_what_was_written_across_files_and_a_restart()
    {
        using var journal = Sealed(seed: 40);
        for (var i = 0; i < 30; i++)
        {
            AppendCompressible(journal, i);
            journal.Append();
        }

        var result = journal.Recover(out var records);
        journal.AssertRecovered(records);
        Assert.True(result.End.FileNumber > 0, "the records should span several journal files");

        journal.Restart(result);
        journal.Append();
        journal.Recover(out records);
        journal.AssertRecovered(records);
    }

    [Fact]
    public void A_sealed_record_is_flagged_compressed_then_sealed_and_no_plaintext_reaches_the_file()
    {
        using var plain = new JournalHarness(seed: 41);
        using var journal = Sealed(seed: 41);
        var compressed = AppendCompressible(journal, 0);
        AppendCompressible(plain, 0);

        var header = journal.ReadBytes(0, compressed.Location.Start.Offset, JournalRecord.SectorSize);
        Assert.True(JournalRecordHeader.TryRead(header, new RecordBinding(JournalHarness.StoreId, 0), out var fields));
        Assert.Equal(JournalRecordFlags.Lz4Compressed | JournalRecordFlags.Sealed, fields.Flags);
        Assert.True(fields.StoredPayloadSize < fields.UncompressedPayloadSize, "the payload should have been compressed before it was sealed");

        Assert.NotEqual(-1, plain.ReadBytes(0, 0, (int)plain.Writer.Position.Offset).AsSpan().IndexOf(Marker));
        Assert.Equal(-1, journal.ReadBytes(0, 0, (int)journal.Writer.Position.Offset).AsSpan().IndexOf(Marker));
        Assert.Equal(-1, journal.ReadBytes(0, 0, (int)journal.Writer.Position.Offset).AsSpan().IndexOf(Marker.AsSpan(0, 12)));
    }

    [Fact]
    public void A_torn_sealed_tail_is_discarded_as_a_torn_plaintext_one_is()
    {
        using var journal = Sealed(seed: 42);
        for (var i = 0; i < 4; i++)
        {
            journal.Append();
        }

        var before = journal.Snapshot();
        var torn = journal.Append(runs: 3);
        var lastPayload = JournalHarness.LastPayloadSector(torn);
        Assert.False(journal.Tear(torn, before, s => s != lastPayload), "the tear must lose a payload sector");
        journal.Written.Remove(torn);

        var result = journal.Recover(out var records);

        journal.AssertRecovered(records);
        Assert.Equal(torn.TransactionId - 1, result.LastTransactionId);
        Assert.Equal(torn.Location.Start, result.End);
    }

    [Fact]
    public void An_intact_record_whose_sealed_payload_was_changed_is_CorruptionException_naming_file_offset_and_record()
    {
        using var journal = Sealed(seed: 43);
        journal.Append();
        var tampered = journal.Append(runs: 2);
        journal.Append();
        // Someone without the key flips a payload bit and recomputes the header checksum and trailers, which need no key.
        journal.Rewrite(tampered, body => body[JournalRecord.HeaderSize + 700] ^= 0x10);

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(journal.PathOf(tampered.Location.Start.FileNumber), error.File);
        Assert.Equal(tampered.Location.Start.Offset, error.Offset);
        Assert.Contains($"record tx {tampered.TransactionId}", error.Reason, StringComparison.Ordinal);
        Assert.Contains("SL3", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void A_changed_header_field_fails_the_seal_even_with_its_checksums_recomputed()
    {
        using var journal = Sealed(seed: 44);
        journal.Append();
        var tampered = journal.Append(runs: 1);
        journal.Written.Remove(tampered);
        journal.Rewrite(tampered, body => body[JournalRecord.StateOffset + 3] ^= 1); // the environment state: plaintext, authenticated

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Contains("SL3", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Sealed_records_read_without_the_key_or_with_a_wrong_one_are_CorruptionException()
    {
        using var journal = Sealed(seed: 45);
        journal.Append();

        var withoutKey = Assert.Throws<CorruptionException>(() =>
            JournalReader.Recover(journal.FileSystem, journal.Directory, JournalHarness.StoreId, default, 1, _ => { }));
        Assert.Contains("without the store's key", withoutKey.Reason, StringComparison.Ordinal);

        using var wrongKey = StoreKey(SealFormat.Preferred, keyFill: 77, storeId: JournalHarness.StoreId);
        using var wrong = new JournalSealing(wrongKey);
        var error = Assert.Throws<CorruptionException>(() =>
            JournalReader.Recover(journal.FileSystem, journal.Directory, JournalHarness.StoreId, default, 1, _ => { }, sealing: wrong));
        Assert.Contains("SL3", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void A_plaintext_record_in_a_sealed_journal_is_CorruptionException()
    {
        using var plain = new JournalHarness(seed: 46);
        plain.Append();
        using var sealing = new JournalSealing(key);

        var error = Assert.Throws<CorruptionException>(() =>
            JournalReader.Recover(plain.FileSystem, plain.Directory, JournalHarness.StoreId, default, 1, _ => { }, sealing: sealing));

        Assert.Contains("not sealed", error.Reason, StringComparison.Ordinal);
    }

    public void Dispose()
    {
        foreach (var item in owned)
        {
            item.Dispose();
        }

        key.Dispose();
    }

    private JournalHarness Sealed(int seed)
    {
        var sealing = new JournalSealing(key);
        owned.Add(sealing);
        return new JournalHarness(seed, sealing: sealing);
    }

    /// <summary>Appends a record of pages full of the marker (LZ4 compresses it), as the store's commit does with compression on.</summary>
    private static WrittenRecord AppendCompressible(JournalHarness journal, int i)
    {
        var image = new byte[2 * Constants.PageSize];
        for (var at = 0; at + Marker.Length <= image.Length; at += Marker.Length + 7)
        {
            Marker.CopyTo(image, at);
        }

        image[^1] = (byte)i;
        var pages = new List<JournalPage> { new(1000 + i, image) };
        var state = new byte[JournalRecord.StateSize];
        journal.Random.NextBytes(state);
        var tx = journal.Writer.NextTransactionId;
        var location = journal.Writer.Append(tx, state, pages, compress: true, sync: true);
        var record = new WrittenRecord(tx, state, pages, location);
        journal.Written.Add(record);
        return record;
    }
}
