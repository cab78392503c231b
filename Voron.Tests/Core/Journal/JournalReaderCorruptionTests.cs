using Voron.Testing;

namespace Voron.Tests.Core.Journal;

/// <summary>
/// Damage that a crash cannot explain — a broken record with acknowledged records after it, a
/// gap, a record this version cannot read — is corruption, reported with the file and offset.
/// </summary>
public sealed class JournalReaderCorruptionTests(ITestOutputHelper output)
{
    [Fact]
    public void Recover_throws_corruption_naming_file_and_offset_when_a_middle_record_payload_is_damaged()
    {
        using var journal = new JournalHarness(seed: 30);
        for (var i = 0; i < 6; i++)
        {
            journal.Append(runs: 1, maxRunPages: 1);
        }

        var bad = journal.Written[2];
        journal.FlipBit(bad.Location.Start, 5000 * 8);
        var applied = new List<long>();

        var error = Assert.Throws<CorruptionException>(() =>
            JournalReader.Recover(journal.FileSystem, journal.Directory, JournalHarness.StoreId, default, 1, r => applied.Add(r.TransactionId)));

        Assert.Equal(journal.PathOf(bad.Location.Start.FileNumber), error.File);
        Assert.Equal(bad.Location.Start.Offset, error.Offset);
        Assert.Contains(journal.PathOf(bad.Location.Start.FileNumber), error.Message, StringComparison.Ordinal);
        Assert.Contains($"offset {bad.Location.Start.Offset}", error.Message, StringComparison.Ordinal);
        Assert.Contains($"record tx {bad.TransactionId} is damaged: sector {5000 / 512}", error.Reason, StringComparison.Ordinal);
        Assert.Equal([1L, 2L], applied);
    }

    [Fact]
    public void Recover_throws_corruption_when_a_later_record_proves_a_torn_looking_middle_record_was_durable()
    {
        using var journal = new JournalHarness(seed: 29);
        for (var i = 0; i < 6; i++)
        {
            journal.Append(runs: 1, maxRunPages: 1);
        }

        // A whole sector of record 3 reads as zeros, as if the disk had never written it (a lost write).
        var bad = journal.Written[2];
        journal.WriteBytes(bad.Location.Start.FileNumber, bad.Location.Start.Offset + 2048, new byte[512]);

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(bad.Location.Start.Offset, error.Offset);
        Assert.Contains($"record tx {bad.TransactionId} is torn", error.Reason, StringComparison.Ordinal);
        Assert.Contains($"record tx {bad.TransactionId + 1} at offset {bad.Location.End.Offset} was written when every record through tx {bad.TransactionId} was durable",
            error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_throws_corruption_when_a_middle_record_header_is_damaged()
    {
        using var journal = new JournalHarness(seed: 31);
        for (var i = 0; i < 6; i++)
        {
            journal.Append();
        }

        var bad = journal.Written[3];
        journal.FlipBit(bad.Location.Start, (JournalRecord.TransactionIdOffset * 8) + 1);

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(bad.Location.Start.Offset, error.Offset);
        Assert.Contains("neither an intact record header nor zeros", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_throws_corruption_when_a_torn_looking_last_record_of_a_file_is_followed_by_a_later_file()
    {
        using var journal = new JournalHarness(seed: 32);
        var first = journal.AppendUntilRotation();
        journal.Append();
        var bad = journal.Written[journal.Written.IndexOf(first) - 1];
        journal.WriteBytes(bad.Location.Start.FileNumber, bad.Location.Start.Offset + 512, new byte[512]);

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(journal.PathOf(bad.Location.Start.FileNumber), error.File);
        Assert.Equal(bad.Location.Start.Offset, error.Offset);
        Assert.Contains(journal.PathOf(first.Location.Start.FileNumber), error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_throws_corruption_on_a_transaction_gap()
    {
        using var journal = new JournalHarness(seed: 33);
        journal.Append();
        journal.Append();
        var end = journal.Append().Location.End;
        journal.Writer.Dispose();

        // A writer that skips transaction 4: records 5 and 6 sit where 4 should be.
        using (var skipping = new JournalWriter(journal.FileSystem, journal.Directory, JournalHarness.StoreId, end, 5, journal.FileSize))
        {
            skipping.Append(5, new byte[64], [journal.RandomPage(1)]);
            skipping.Append(6, new byte[64], [journal.RandomPage(1)]);
        }

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(end.Offset, error.Offset);
        Assert.Contains("gap: record tx 5 sits where record tx 4 should be", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_throws_corruption_when_the_first_record_after_the_start_is_later_than_expected()
    {
        using var journal = new JournalHarness(seed: 34);
        journal.Append();
        journal.Append();

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _, default, expectedTransactionId: 0));

        Assert.Equal(0, error.Offset);
        Assert.Contains("gap", error.Reason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(4)]
    [InlineData(7)]
    public void Recover_throws_corruption_on_an_unsupported_page_encoding(byte encoding)
    {
        using var journal = new JournalHarness(seed: 35);
        journal.Append();
        var record = journal.Append(runs: 2, maxRunPages: 1);
        journal.Append();
        journal.Rewrite(record, bytes => bytes[JournalRecord.HeaderSize + JournalRecord.EntryEncodingOffset] = encoding);

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(record.Location.Start.Offset, error.Offset);
        Assert.Contains($"unsupported encoding {encoding} in record tx {record.TransactionId}", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_throws_corruption_on_an_in_data_file_entry_that_stores_other_than_a_checksum()
    {
        using var journal = new JournalHarness(seed: 37);
        journal.Append();
        var record = journal.Append(runs: 2, maxRunPages: 1);
        journal.Append();
        journal.Rewrite(record, bytes => bytes[JournalRecord.HeaderSize + JournalRecord.EntryEncodingOffset] = (byte)JournalPageEncoding.InDataFile);

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(record.Location.Start.Offset, error.Offset);
        Assert.Contains($"stores {Constants.PageSize} bytes in encoding 3", error.Reason, StringComparison.Ordinal);
    }

    /// <summary>Encoding 3 came with format 3 (R8): a version-2 record that holds it is corrupt, never read as one.</summary>
    [Fact]
    public void Recover_throws_corruption_on_an_in_data_file_entry_in_a_version_2_record()
    {
        using var journal = new JournalHarness(seed: 38);
        journal.Append();
        var record = journal.Append(runs: 2, maxRunPages: 1);
        journal.Append();
        journal.Rewrite(record, bytes =>
        {
            BinaryPrimitives.WriteUInt16LittleEndian(bytes.Slice(JournalRecord.FormatVersionOffset), JournalRecord.FormatVersion2);
            bytes[JournalRecord.HeaderSize + JournalRecord.EntryEncodingOffset] = (byte)JournalPageEncoding.InDataFile;
        });

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(record.Location.Start.Offset, error.Offset);
        Assert.Contains($"unsupported encoding 3 in record tx {record.TransactionId}", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData((ushort)8)]
    [InlineData((ushort)0x8000)]
    public void Recover_throws_corruption_on_an_unknown_flag_even_in_the_last_record(ushort flags)
    {
        using var journal = new JournalHarness(seed: 36);
        journal.Append();
        var record = journal.Append();
        journal.Rewrite(record, bytes => BinaryPrimitives.WriteUInt16LittleEndian(bytes.Slice(JournalRecord.FlagsOffset), flags));

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(record.Location.Start.Offset, error.Offset);
        Assert.Contains($"unsupported flags 0x{flags:X4} in record tx {record.TransactionId}", error.Reason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    public void Recover_throws_corruption_on_a_format_version_no_bound_record_has(ushort version)
    {
        using var journal = new JournalHarness(seed: 37);
        var record = journal.Append();
        journal.Rewrite(record, bytes => BinaryPrimitives.WriteUInt16LittleEndian(bytes.Slice(JournalRecord.FormatVersionOffset), version));

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Contains($"unsupported format version {version}", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_throws_FormatVersionException_on_a_newer_format_version()
    {
        using var journal = new JournalHarness(seed: 37);
        var record = journal.Append();
        journal.Rewrite(record, bytes => BinaryPrimitives.WriteUInt16LittleEndian(bytes.Slice(JournalRecord.FormatVersionOffset), JournalRecord.FormatVersion + 1));

        var error = Assert.Throws<FormatVersionException>(() => journal.Recover(out _));

        Assert.Equal(JournalRecord.FormatVersion + 1, error.Found);
        Assert.Equal(JournalRecord.FormatVersion, error.Supported);
    }

    [Fact]
    public void Recover_reads_a_format2_record_as_format3()
    {
        using var journal = new JournalHarness(seed: 37);
        var record = journal.Append();
        journal.Rewrite(record, bytes => BinaryPrimitives.WriteUInt16LittleEndian(bytes.Slice(JournalRecord.FormatVersionOffset), JournalRecord.FormatVersion2));

        var result = journal.Recover(out _);

        Assert.Equal(record.TransactionId, result.LastTransactionId);
    }

    public static TheoryData<string> BadEntries => ["page number 0", "page count 0", "short stored length", "extra payload byte", "reserved byte"];

    [Theory]
    [MemberData(nameof(BadEntries))]
    public void Recover_throws_corruption_when_entries_do_not_fill_the_payload_exactly(string damage)
    {
        using var journal = new JournalHarness(seed: 38);
        var record = journal.Append(runs: 2, maxRunPages: 2);
        journal.Rewrite(record, bytes =>
        {
            var entry = bytes.Slice(JournalRecord.HeaderSize);
            switch (damage)
            {
                case "page number 0":
                    BinaryPrimitives.WriteInt64LittleEndian(entry[JournalRecord.EntryPageNumberOffset..], 0);
                    break;
                case "page count 0":
                    BinaryPrimitives.WriteInt32LittleEndian(entry[JournalRecord.EntryPageCountOffset..], 0);
                    break;
                case "short stored length":
                    BinaryPrimitives.WriteInt32LittleEndian(entry[JournalRecord.EntryStoredLengthOffset..], 100);
                    break;
                case "extra payload byte":
                    var size = BinaryPrimitives.ReadInt64LittleEndian(bytes.Slice(JournalRecord.StoredPayloadSizeOffset));
                    BinaryPrimitives.WriteInt64LittleEndian(bytes.Slice(JournalRecord.StoredPayloadSizeOffset), size + 1);
                    BinaryPrimitives.WriteInt64LittleEndian(bytes.Slice(JournalRecord.UncompressedPayloadSizeOffset), size + 1);
                    break;
                default:
                    entry[JournalRecord.EntryReservedOffset + 3] = 1;
                    break;
            }
        });

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.StartsWith("R8:", error.Reason, StringComparison.Ordinal);
        Assert.Equal(record.Location.Start.Offset, error.Offset);
    }

    [Fact]
    public void Recover_throws_corruption_when_an_intact_header_claims_a_record_past_the_end_of_the_file()
    {
        using var journal = new JournalHarness(seed: 39);
        var record = journal.Append();
        journal.Rewrite(record, bytes =>
        {
            BinaryPrimitives.WriteInt64LittleEndian(bytes.Slice(JournalRecord.StoredPayloadSizeOffset), journal.FileSize);
            BinaryPrimitives.WriteInt64LittleEndian(bytes.Slice(JournalRecord.UncompressedPayloadSizeOffset), journal.FileSize);
        });

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Contains("extends past the end of the file", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_throws_corruption_when_a_journal_file_between_start_and_end_is_missing()
    {
        using var journal = new JournalHarness(seed: 40);
        journal.AppendUntilRotation();
        var third = journal.AppendUntilRotation();
        journal.Append();
        journal.FileSystem.DeleteFile(journal.PathOf(third.Location.Start.FileNumber - 1));

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(journal.PathOf(third.Location.Start.FileNumber - 2), error.File);
        Assert.Contains($"record tx {third.TransactionId} at offset 0 of '{journal.PathOf(third.Location.Start.FileNumber)}' was written when", error.Reason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void Recover_names_a_file_cut_at_a_record_boundary_not_the_intact_file_after_it(bool truncate)
    {
        // A file cut short at a record boundary (truncated, or its tail zeroed) was reported as
        // damage of the next file, which is intact: its first header, of a later transaction, was
        // taken for "written and since changed". An intact later header there is a gap in the
        // file before it (D2), and the error names that file where its records stop.
        using var journal = new JournalHarness(seed: 42);
        journal.AppendUntilRotation();
        var next = journal.AppendUntilRotation();
        journal.Append();
        var cutFile = next.Location.Start.FileNumber - 1;
        var inCutFile = journal.Written.Where(r => r.Location.Start.FileNumber == cutFile).ToList();
        Assert.True(inCutFile.Count >= 3, $"file {cutFile} holds {inCutFile.Count} records");
        var cut = inCutFile[1].Location.Start;
        if (truncate)
        {
            using var file = journal.FileSystem.Open(journal.PathOf(cutFile), FileOpenMode.OpenExisting);
            file.SetLength(cut.Offset);
        }
        else
        {
            journal.WriteBytes(cutFile, cut.Offset, new byte[(int)(journal.LengthOf(cutFile) - cut.Offset)]);
        }

        foreach (var mode in new[] { JournalTailRecovery.DiscardTornWrite, JournalTailRecovery.Strict })
        {
            var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _, mode: mode));
            Assert.Equal(journal.PathOf(cutFile), error.File);
            Assert.Equal(cut.Offset, error.Offset);
            Assert.Contains($"starts with record tx {next.TransactionId}", error.Reason, StringComparison.Ordinal);
            Assert.Contains($"records {inCutFile[1].TransactionId}..{next.TransactionId - 1} are missing", error.Reason, StringComparison.Ordinal);
            Assert.Contains("cut short", error.Reason, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_cut_at_any_record_boundary_is_the_end_of_the_log_in_the_last_file_and_names_its_file_in_any_other()
    {
        var seed = TestSeed.Next(output, nameof(A_cut_at_any_record_boundary_is_the_end_of_the_log_in_the_last_file_and_names_its_file_in_any_other));
        var random = new Random(seed);
        for (var round = 0; round < 12; round++)
        {
            using var journal = new JournalHarness(random.Next());
            for (var files = random.Next(1, 4); files > 0; files--)
            {
                journal.AppendUntilRotation();
            }

            for (var more = random.Next(0, 4); more > 0; more--)
            {
                journal.Append();
            }

            var victim = journal.Written[random.Next(journal.Written.Count)];
            var cut = victim.Location.Start;
            var lastFile = journal.Writer.Position.FileNumber;
            journal.Writer.Dispose();
            using (var file = journal.FileSystem.Open(journal.PathOf(cut.FileNumber), FileOpenMode.OpenExisting))
            {
                file.SetLength(cut.Offset);
            }

            var where = $"seed {seed}, round {round}: cut file {cut.FileNumber} (last {lastFile}) at offset {cut.Offset}, before tx {victim.TransactionId}";
            if (cut.FileNumber == lastFile)
            {
                var result = journal.Recover(out var records);
                Assert.True(victim.TransactionId - 1 == result.LastTransactionId, where);
                Assert.Equal(journal.Written.IndexOf(victim), records.Count);
            }
            else
            {
                var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));
                Assert.True(journal.PathOf(cut.FileNumber) == error.File && cut.Offset == error.Offset, $"{where}: {error.Message}");
                Assert.True(error.Reason.Contains($"record tx {victim.TransactionId} should start", StringComparison.Ordinal), $"{where}: {error.Message}");
            }
        }
    }

    [Fact]
    public void Recover_throws_corruption_when_the_recovery_start_is_past_the_end_of_its_file()
    {
        using var journal = new JournalHarness(seed: 41);
        journal.Append();
        using (var file = journal.FileSystem.Open(journal.PathOf(0), FileOpenMode.OpenExisting))
        {
            Assert.True(file.Length < 1 << 20);
        }

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _, new JournalPosition(0, 1 << 20), 2));

        Assert.Contains("past the end", error.Reason, StringComparison.Ordinal);
    }
}
