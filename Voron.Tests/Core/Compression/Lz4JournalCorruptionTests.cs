namespace Voron.Tests.Core.Compression;

/// <summary>
/// A compressed journal record whose stored bytes were damaged and then checksummed again (header
/// and sector trailers, so the reader must decode them) is a <see cref="CorruptionException"/> naming the
/// record — never another exception, never a crash — or, when the damage happens to decode into
/// well-formed entries, a record recovered as written down.
/// </summary>
public sealed class Lz4JournalCorruptionTests(ITestOutputHelper output)
{
    private const string Directory = "/j";

    [Fact]
    public void Recover_throws_corruption_when_a_checksummed_lz4_payload_does_not_decode()
    {
        var (fs, location) = WriteCompressedRecord();
        Damage(fs, location, bytes => bytes[^1] ^= 0xFF, truncateBy: 7);

        var error = Assert.Throws<CorruptionException>(() => Recover(fs));

        Assert.Equal(location.Start.Offset, error.Offset);
        Assert.StartsWith("R9: the LZ4 payload of record tx 1", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_throws_only_corruption_when_checksummed_lz4_payloads_are_damaged_at_random()
    {
        var seed = TestSeed.Next(output, nameof(Recover_throws_only_corruption_when_checksummed_lz4_payloads_are_damaged_at_random));
        var random = new Random(seed);
        var (corrupt, recovered) = (0, 0);
        for (var trial = 0; trial < 300; trial++)
        {
            var (fs, location) = WriteCompressedRecord();
            Damage(fs, location, bytes =>
            {
                for (var flips = random.Next(1, 6); flips > 0; flips--)
                {
                    bytes[random.Next(bytes.Length)] = (byte)random.Next(256);
                }
            }, truncateBy: random.Next(3) == 0 ? random.Next(1, 100) : 0);

            try
            {
                Recover(fs);
                recovered++;
            }
            catch (CorruptionException error)
            {
                Assert.True(error.Offset == location.Start.Offset, $"seed {seed}, trial {trial}: offset {error.Offset}");
                corrupt++;
            }
            catch (Exception error)
            {
                Assert.Fail($"seed {seed}, trial {trial}: {error.GetType().Name} instead of CorruptionException: {error}");
            }
        }

        output.WriteLine($"corruption {corrupt}, recovered {recovered}");
        Assert.True(corrupt > 150, $"seed {seed}: only {corrupt} of 300 damaged records were reported as corruption");
    }

    private static (InMemoryFileSystem Fs, JournalRecordLocation Location) WriteCompressedRecord()
    {
        var fs = new InMemoryFileSystem(16 << 20);
        var pages = Enumerable.Range(0, 6).Select(i => new JournalPage(10 + i, Json(i))).ToArray();
        using var writer = new JournalWriter(fs, Directory, Journal.JournalHarness.StoreId, new JournalPosition(0, 0), 1, 1 << 20);
        var location = writer.Append(1, new byte[JournalRecord.StateSize], pages, compress: true, sync: true);
        return (fs, location);
    }

    /// <summary>Edits the stored payload of the record (optionally shortening it), then re-stamps the header checksum and the sector trailers as a writer would.</summary>
    private static void Damage(InMemoryFileSystem fs, JournalRecordLocation location, Action<byte[]> edit, int truncateBy)
    {
        using var file = fs.Open(JournalFiles.PathOf(Directory, 0), FileOpenMode.OpenExisting);
        var record = new byte[location.Length];
        file.Read(location.Start.Offset, record);
        var bodyLength = record.Length / JournalRecord.SectorSize * JournalRecord.SectorDataSize;
        JournalRecord.Unframe(record, bodyLength);
        var flags = (JournalRecordFlags)BinaryPrimitives.ReadUInt16LittleEndian(record.AsSpan(JournalRecord.FlagsOffset));
        Assert.True(flags.HasFlag(JournalRecordFlags.Lz4Compressed), "the record is compressed");
        var stored = (int)BinaryPrimitives.ReadInt64LittleEndian(record.AsSpan(JournalRecord.StoredPayloadSizeOffset));

        var payload = record.AsSpan(JournalRecord.HeaderSize, stored).ToArray();
        edit(payload);
        payload = payload[..(stored - truncateBy)];
        record.AsSpan(JournalRecord.HeaderSize, stored).Clear();
        payload.CopyTo(record.AsSpan(JournalRecord.HeaderSize));
        BinaryPrimitives.WriteInt64LittleEndian(record.AsSpan(JournalRecord.StoredPayloadSizeOffset), payload.Length);
        Journal.JournalHarness.Restamp(record, 0, JournalRecord.HeaderSize + payload.Length);
        file.Write(location.Start.Offset, record);
    }

    private static void Recover(InMemoryFileSystem fs) =>
        JournalReader.Recover(fs, Directory, Journal.JournalHarness.StoreId, new JournalPosition(0, 0), 1, _ => { });

    private static byte[] Json(int seed)
    {
        var text = new StringBuilder();
        for (var i = 0; text.Length < Constants.PageSize; i++)
        {
            text.Append("{\"id\":\"users/").Append(seed * 1000 + i).Append("\",\"city\":\"Haifa\",\"status\":\"active\"},");
        }

        return Encoding.ASCII.GetBytes(text.ToString(0, Constants.PageSize));
    }
}
