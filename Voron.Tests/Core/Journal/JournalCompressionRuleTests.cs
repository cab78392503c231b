namespace Voron.Tests.Core.Journal;

/// <summary>The writer's compression rule (JournalRecord.cs): threshold, a quarter saved, 64 KiB sample in spread slices.</summary>
public sealed class JournalCompressionRuleTests
{
    private const string Directory = "/j";

    [Fact]
    public void A_compressible_payload_longer_than_the_sample_is_stored_compressed_and_reads_back_exactly()
    {
        var pages = Pages(12, _ => Json());

        var (flags, stored, raw, recovered) = WriteAndRecover(pages);

        Assert.True(flags.HasFlag(JournalRecordFlags.Lz4Compressed));
        Assert.True(raw > JournalRecord.CompressionSample);
        Assert.True(stored < raw / 2, $"stored {stored} of {raw} bytes");
        AssertSamePages(pages, recovered);
    }

    [Fact]
    public void A_payload_whose_sampled_slices_do_not_compress_is_stored_raw_even_if_the_rest_would()
    {
        // 36 pages: random where a sample slice falls, JSON (which LZ4 shrinks) everywhere else.
        const int count = 36;
        var entry = JournalRecord.EntryHeaderSize + Constants.PageSize;
        var slices = JournalRecord.SampleSlices(count * entry).ToList();
        bool Sampled(int page) => slices.Any(s => s.Start.Value < (page + 1) * entry && page * entry < s.End.Value);
        var pages = Pages(count, i => Sampled(i) ? RandomPage(i) : Json());
        Assert.True(Enumerable.Range(0, count).Count(Sampled) <= 12);
        Assert.True(JournalRecord.CompressionPays(count * entry, Lz4Size(pages)), "the whole payload would pay");

        var (flags, stored, raw, recovered) = WriteAndRecover(pages);

        Assert.False(flags.HasFlag(JournalRecordFlags.Lz4Compressed));
        Assert.Equal(raw, stored);
        AssertSamePages(pages, recovered);
    }

    [Fact]
    public void After_a_payload_kept_compressed_the_next_is_compressed_whole_until_one_does_not_pay()
    {
        // The payload of the test above: its sample fails, the whole of it would pay.
        const int count = 36;
        var entry = JournalRecord.EntryHeaderSize + Constants.PageSize;
        var slices = JournalRecord.SampleSlices(count * entry).ToList();
        bool Sampled(int page) => slices.Any(s => s.Start.Value < (page + 1) * entry && page * entry < s.End.Value);
        var mixed = Pages(count, i => Sampled(i) ? RandomPage(i) : Json());
        var json = Pages(12, _ => Json());
        var random = Pages(12, RandomPage);

        var records = WriteAndRecover([json, mixed, random, mixed]);

        Assert.True(records[0].Flags.HasFlag(JournalRecordFlags.Lz4Compressed), "JSON compresses");
        Assert.True(records[1].Flags.HasFlag(JournalRecordFlags.Lz4Compressed), "no sample after a payload that paid");
        Assert.False(records[2].Flags.HasFlag(JournalRecordFlags.Lz4Compressed), "random bytes do not pay");
        Assert.False(records[3].Flags.HasFlag(JournalRecordFlags.Lz4Compressed), "the sample is back after a payload that did not pay");
        AssertSamePages([.. json, .. mixed, .. random, .. mixed], [.. records.SelectMany(r => r.Pages)]);
    }

    [Fact]
    public void The_sample_slices_start_at_the_payload_start_end_at_its_end_and_hold_64_KiB()
    {
        foreach (var length in new[] { JournalRecord.CompressionSample + 1, 100_000, 10 << 20 })
        {
            var slices = JournalRecord.SampleSlices(length).ToList();

            Assert.Equal(JournalRecord.CompressionSampleSlices, slices.Count);
            Assert.Equal(0, slices[0].Start.Value);
            Assert.Equal(length, slices[^1].End.Value);
            Assert.Equal(JournalRecord.CompressionSample, slices.Sum(s => s.End.Value - s.Start.Value));
            Assert.All(slices.Zip(slices.Skip(1)), pair => Assert.True(pair.First.Start.Value < pair.Second.Start.Value));
        }
    }

    [Fact]
    public void A_payload_that_compresses_by_less_than_a_quarter_is_stored_raw()
    {
        // One JSON page in five random ones: LZ4 saves between an eighth and a quarter.
        var pages = Pages(5, i => i == 0 ? Json() : RandomPage(i));
        var raw = (int)JournalRecord.MeasurePayload(pages);
        var compressed = Lz4Size(pages);
        Assert.True(compressed < raw - raw / 8 && compressed > raw - raw / 4, $"{compressed} of {raw} bytes");

        var (flags, stored, _, recovered) = WriteAndRecover(pages);

        Assert.False(flags.HasFlag(JournalRecordFlags.Lz4Compressed));
        Assert.Equal(raw, stored);
        AssertSamePages(pages, recovered);
    }

    [Fact]
    public void A_payload_under_the_threshold_is_stored_raw_however_well_it_compresses()
    {
        var small = new JournalPage(7, new byte[Constants.PageSize].AsMemory(0, 1000), JournalPageEncoding.DiffAgainstZeros, 1);
        Assert.True(JournalRecord.MeasurePayload([small]) < JournalRecord.CompressionThreshold);

        var (flags, stored, raw, _) = WriteAndRecover([small]);

        Assert.False(flags.HasFlag(JournalRecordFlags.Lz4Compressed));
        Assert.Equal(raw, stored);
    }

    [Fact]
    public void An_incompressible_payload_is_stored_raw()
    {
        var pages = Pages(4, RandomPage);

        var (flags, stored, raw, recovered) = WriteAndRecover(pages);

        Assert.False(flags.HasFlag(JournalRecordFlags.Lz4Compressed));
        Assert.Equal(raw, stored);
        AssertSamePages(pages, recovered);
    }

    /// <summary>Appends each page set as one record (transactions 1, 2, ...) through one writer and reads each record back.</summary>
    private static List<(JournalRecordFlags Flags, List<RecoveredPage> Pages)> WriteAndRecover(JournalPage[][] transactions)
    {
        using var fs = new InMemoryFileSystem(64 << 20);
        var starts = new List<long>();
        using (var writer = new JournalWriter(fs, Directory, JournalHarness.StoreId, new JournalPosition(0, 0), 1, 16L << 20))
        {
            for (var i = 0; i < transactions.Length; i++)
            {
                starts.Add(writer.Append(i + 1, new byte[64], transactions[i], compress: true, sync: true).Start.Offset);
            }
        }

        var result = new List<(JournalRecordFlags Flags, List<RecoveredPage> Pages)>();
        using (var file = fs.Open(JournalFiles.PathOf(Directory, 0), FileOpenMode.OpenExisting))
        {
            foreach (var start in starts)
            {
                var header = new byte[JournalRecord.HeaderSize];
                file.Read(start, header);
                result.Add(((JournalRecordFlags)BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(JournalRecord.FlagsOffset)), []));
            }
        }

        var index = 0;
        JournalReader.Recover(fs, Directory, JournalHarness.StoreId, new JournalPosition(0, 0), 1,
            record => result[index++].Pages.AddRange(record.Pages.Select(p => p with { Bytes = p.Bytes.ToArray() }))); // the bytes alias the reader's buffer
        Assert.Equal(transactions.Length, index);
        return result;
    }

    private static (JournalRecordFlags Flags, long Stored, long Raw, List<RecoveredPage> Pages) WriteAndRecover(JournalPage[] pages)
    {
        using var fs = new InMemoryFileSystem(64 << 20);
        JournalRecordLocation location;
        using (var writer = new JournalWriter(fs, Directory, JournalHarness.StoreId, new JournalPosition(0, 0), 1, 8L << 20))
        {
            location = writer.Append(1, new byte[64], pages, compress: true, sync: true);
        }

        var header = new byte[JournalRecord.HeaderSize];
        using (var file = fs.Open(JournalFiles.PathOf(Directory, 0), FileOpenMode.OpenExisting))
        {
            file.Read(location.Start.Offset, header);
        }

        var recovered = new List<RecoveredPage>();
        JournalReader.Recover(fs, Directory, JournalHarness.StoreId, new JournalPosition(0, 0), 1, record => recovered.AddRange(record.Pages.Select(p => p with { Bytes = p.Bytes.ToArray() }))); // the bytes alias the reader's buffer
        return ((JournalRecordFlags)BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(JournalRecord.FlagsOffset)),
            BinaryPrimitives.ReadInt64LittleEndian(header.AsSpan(JournalRecord.StoredPayloadSizeOffset)),
            BinaryPrimitives.ReadInt64LittleEndian(header.AsSpan(JournalRecord.UncompressedPayloadSizeOffset)),
            recovered);
    }

    private static void AssertSamePages(JournalPage[] written, List<RecoveredPage> recovered)
    {
        Assert.Equal(written.Length, recovered.Count);
        for (var i = 0; i < written.Length; i++)
        {
            Assert.Equal(written[i].PageNumber, recovered[i].PageNumber);
            Assert.True(written[i].Image.Span.SequenceEqual(recovered[i].Bytes.Span), $"page {i} differs after recovery");
        }
    }

    private static int Lz4Size(JournalPage[] pages)
    {
        var payload = new byte[JournalRecord.MeasurePayload(pages)];
        JournalRecord.EncodeEntries(payload, pages);
        var destination = new byte[Voron.Compression.Lz4Block.MaxCompressedLength(payload.Length)];
        return Voron.Compression.Lz4Block.Compress(payload, destination);
    }

    private static JournalPage[] Pages(int count, Func<int, byte[]> content) =>
        [.. Enumerable.Range(0, count).Select(i => new JournalPage(10 + i, content(i)))];

    private static byte[] RandomPage(int seed)
    {
        var page = new byte[Constants.PageSize];
        new Random(seed).NextBytes(page);
        return page;
    }

    private static byte[] Json()
    {
        var text = new StringBuilder();
        for (var i = 0; text.Length < Constants.PageSize; i++)
        {
            text.Append("{\"id\":\"users/").Append(i).Append("\",\"city\":\"Haifa\",\"status\":\"active\"},");
        }

        return Encoding.ASCII.GetBytes(text.ToString(0, Constants.PageSize));
    }
}
