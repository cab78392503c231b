namespace Voron.Tests.Core.Journal;

/// <summary>
/// A journal directory, a writer over it, a seeded source of random transactions, the model of
/// what was appended, and the tools to damage files the way a crash or a bad disk would.
/// </summary>
internal sealed class JournalHarness : IDisposable
{
    public const int SectorSize = 512;

    /// <summary>The store id the journal tests bind their records to (any non-zero number would do).</summary>
    public const ulong StoreId = 0x5EED_1D00_0000_0017;
    public const long SmallFileSize = 256 * 1024;

    public JournalHarness(int seed, long fileSize = SmallFileSize, IFileSystem? fileSystem = null, string directory = "/store/journal",
        JournalSealing? sealing = null)
    {
        Sealing = sealing;
        Seed = seed;
        Random = new Random(seed);
        FileSize = fileSize;
        FileSystem = fileSystem ?? new InMemoryFileSystem(reservePerFile: 16 << 20);
        Directory = directory;
        Writer = new JournalWriter(FileSystem, Directory, JournalHarness.StoreId, new JournalPosition(0, 0), 1, fileSize, sealing);
    }

    /// <summary>The journal seal the writer and recovery use (SL8), or null for a journal that is not sealed.</summary>
    public JournalSealing? Sealing { get; }

    public int Seed { get; }

    public Random Random { get; }

    public long FileSize { get; }

    public IFileSystem FileSystem { get; }

    public string Directory { get; }

    public JournalWriter Writer { get; private set; }

    /// <summary>Every record appended, in order; a test removes the ones a crash destroyed.</summary>
    public List<WrittenRecord> Written { get; } = [];

    public string PathOf(long fileNumber) => JournalFiles.PathOf(Directory, fileNumber);

    /// <summary>Appends the next transaction with <paramref name="runs"/> random page runs of 1..3 pages (random count if null).</summary>
    public WrittenRecord Append(int? runs = null, int maxRunPages = 3)
    {
        var count = runs ?? Random.Next(1, 5);
        var pages = new List<JournalPage>();
        for (var i = 0; i < count; i++)
        {
            pages.Add(RandomPage(Random.Next(1, maxRunPages + 1)));
        }

        return Append(pages);
    }

    public WrittenRecord Append(IReadOnlyList<JournalPage> pages)
    {
        var state = new byte[JournalRecord.StateSize];
        Random.NextBytes(state);
        var tx = Writer.NextTransactionId;
        var location = Writer.Append(tx, state, pages);
        var record = new WrittenRecord(tx, state, pages, location);
        Written.Add(record);
        return record;
    }

    public JournalPage RandomPage(int pageCount)
    {
        var image = new byte[pageCount * Constants.PageSize];
        Random.NextBytes(image);
        return new JournalPage(Random.Next(1, 100_000), image);
    }

    /// <summary>Appends until the record just written is the first of a new file; returns it.</summary>
    public WrittenRecord AppendUntilRotation(int? runs = null, int maxRunPages = 3)
    {
        var file = Writer.Position.FileNumber;
        while (true)
        {
            var record = Append(runs, maxRunPages);
            if (record.Location.Start.FileNumber != file)
            {
                return record;
            }
        }
    }

    public JournalRecoveryResult Recover(out List<RecoveredCopy> records, JournalPosition start = default, long expectedTransactionId = 1,
        JournalTailRecovery mode = JournalTailRecovery.DiscardTornWrite)
    {
        var copies = new List<RecoveredCopy>();
        var result = JournalReader.Recover(FileSystem, Directory, StoreId, start, expectedTransactionId, r => copies.Add(RecoveredCopy.Of(r)), mode,
            sealing: Sealing);
        records = copies;
        return result;
    }

    /// <summary>Simulates a restart: the old writer is gone, a new one resumes where recovery says.</summary>
    public void Restart(JournalRecoveryResult recovered)
    {
        Writer.Dispose();
        Writer = new JournalWriter(FileSystem, Directory, JournalHarness.StoreId, recovered, FileSize, Sealing);
    }

    /// <summary>Asserts that <paramref name="recovered"/> is exactly the written records from index <paramref name="from"/> on.</summary>
    public void AssertRecovered(IReadOnlyList<RecoveredCopy> recovered, int from = 0)
    {
        var expected = Written.Skip(from).ToList();
        Assert.Equal(expected.Count, recovered.Count);
        for (var i = 0; i < expected.Count; i++)
        {
            var (w, r) = (expected[i], recovered[i]);
            Assert.Equal(w.TransactionId, r.TransactionId);
            Assert.Equal(w.State, r.State);
            Assert.Equal(w.Location.Start, r.Start);
            Assert.Equal(w.Location.End, r.End);
            Assert.Equal(w.Pages.Count, r.Pages.Count);
            for (var p = 0; p < w.Pages.Count; p++)
            {
                Assert.Equal(w.Pages[p].PageNumber, r.Pages[p].PageNumber);
                Assert.Equal(w.Pages[p].PageCount, r.Pages[p].PageCount);
                Assert.True(w.Pages[p].Image.Span.SequenceEqual(r.Pages[p].Bytes), $"tx {w.TransactionId} page entry {p} differs");
            }
        }
    }

    /// <summary>A copy of every journal file, to tear a later write against.</summary>
    public Dictionary<long, byte[]> Snapshot() =>
        JournalFiles.List(FileSystem, Directory).ToDictionary(n => n, n => ReadBytes(n, 0, (int)LengthOf(n)));

    /// <summary>
    /// Simulates a crash during the write of <paramref name="record"/>: each 512-byte sector of
    /// the record for which <paramref name="keepSector"/> is false gets back the bytes it had in
    /// <paramref name="before"/> (zeros if the file was new), as F1 in IStorageFile.cs allows.
    /// Returns whether the record survived: every sector was kept (each one, padding included,
    /// carries a checksum), so it is still valid and recovery must return it.
    /// </summary>
    public static bool Survives(WrittenRecord record, Func<int, bool> keepSector) =>
        Enumerable.Range(0, (int)(record.Location.Length / SectorSize)).All(keepSector);

    public bool Tear(WrittenRecord record, Dictionary<long, byte[]> before, Func<int, bool> keepSector)
    {
        var kept = new List<int>();
        var file = record.Location.Start.FileNumber;
        var old = before.GetValueOrDefault(file, []);
        for (var sector = 0; sector < record.Location.Length / SectorSize; sector++)
        {
            if (keepSector(sector))
            {
                kept.Add(sector);
            }
            else
            {
                var offset = record.Location.Start.Offset + (sector * SectorSize);
                var bytes = new byte[SectorSize];
                if (offset < old.Length)
                {
                    old.AsSpan((int)offset, SectorSize).CopyTo(bytes);
                }

                WriteBytes(file, offset, bytes);
            }
        }

        return Survives(record, kept.Contains);
    }

    /// <summary>Sector index, within <paramref name="record"/>, of the last byte of its (uncompressed) stored payload.</summary>
    public static int LastPayloadSector(WrittenRecord record) =>
        (int)((JournalRecord.HeaderSize + JournalRecord.MeasurePayload(record.Pages) - 1) / JournalRecord.SectorDataSize);

    public long LengthOf(long fileNumber)
    {
        using var file = FileSystem.Open(PathOf(fileNumber), FileOpenMode.OpenExisting);
        return file.Length;
    }

    public byte[] ReadBytes(long fileNumber, long offset, int count)
    {
        using var file = FileSystem.Open(PathOf(fileNumber), FileOpenMode.OpenExisting);
        var bytes = new byte[count];
        Assert.Equal(count, file.Read(offset, bytes));
        return bytes;
    }

    public void WriteBytes(long fileNumber, long offset, ReadOnlySpan<byte> bytes)
    {
        using var file = FileSystem.Open(PathOf(fileNumber), FileOpenMode.OpenExisting);
        file.Write(offset, bytes);
    }

    public void FlipBit(JournalPosition position, long bit)
    {
        var offset = position.Offset + (bit / 8);
        var bytes = ReadBytes(position.FileNumber, offset, 1);
        bytes[0] ^= (byte)(1 << (int)(bit % 8));
        WriteBytes(position.FileNumber, offset, bytes);
    }

    /// <summary>
    /// Edits a written record's body (header and payload, as if its sectors were one run of
    /// bytes) in place, then re-stamps the checksums a writer would have computed — header and
    /// sector trailers, bound to this harness's store and the record's file — so the result is a
    /// record some (hypothetical) writer really wrote.
    /// </summary>
    public void Rewrite(WrittenRecord record, Action<Span<byte>> edit)
    {
        var start = record.Location.Start;
        var bytes = ReadBytes(start.FileNumber, start.Offset, (int)record.Location.Length);
        var bodyLength = (int)(bytes.Length / JournalRecord.SectorSize * JournalRecord.SectorDataSize);
        JournalRecord.Unframe(bytes, bodyLength);
        edit(bytes.AsSpan(0, bodyLength));
        Restamp(bytes, start.FileNumber, bodyLength);
        WriteBytes(start.FileNumber, start.Offset, bytes);
    }

    /// <summary>Frames a body (header first) as a record of <paramref name="record"/>.Length bytes for file <paramref name="fileNumber"/>.</summary>
    public static void Restamp(Span<byte> record, long fileNumber, int bodyLength) => Restamp(record, fileNumber, bodyLength, StoreId);

    /// <summary>As <see cref="Restamp(Span{byte}, long, int)"/>, for the records of store <paramref name="storeId"/>.</summary>
    public static void Restamp(Span<byte> record, long fileNumber, int bodyLength, ulong storeId)
    {
        var header = record[..JournalRecord.HeaderSize];
        BitConverter.TryWriteBytes(header[JournalRecord.HeaderChecksumOffset..], JournalRecord.ComputeHeaderChecksum(header, storeId, fileNumber));
        JournalRecord.Frame(record, bodyLength, JournalRecord.SectorSeed(storeId, fileNumber, JournalRecord.GetTransactionId(header)));
    }

    public void Dispose() => Writer.Dispose();
}
