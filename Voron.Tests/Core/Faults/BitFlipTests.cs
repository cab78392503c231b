namespace Voron.Tests.Core.Faults;

/// <summary>
/// CT6. bit rot. A small store (commits flushed to the data file, more commits only in the
/// journal, an overflow value, two trees) has one bit flipped — every bit of both header copies,
/// and a large random sample of bits in the journal records and the data file's pages — and is
/// then opened, read in full and checked. Each flip must give either a clear
/// <see cref="CorruptionException"/> or <see cref="FormatVersionException"/> naming the file, or
/// exactly the right contents (the flip hit bytes nothing reads: reserved header bytes, padding,
/// free or unused pages, records already in the data file, pages the journal replay rewrites).
/// A flip in the last journal record is detected too (format 2: a written sector that no longer
/// matches its checksum is rot, not a torn write; format 1 dropped the record silently, losing an
/// acknowledged commit). Never a wrong answer, another exception, or a hang
/// (StateRunner's timeout); a process crash would end the test run.
/// </summary>
public sealed class BitFlipTests(ITestOutputHelper output)
{
    private static readonly Lazy<GoldenStore> Golden = new(GoldenStore.Build);

    [Fact]
    public void Every_bit_of_both_header_copies_flipped_is_detected_or_harmless()
    {
        var golden = Golden.Value;
        var flips = new List<Flip>();
        foreach (var header in new[] { "/store/headers.one", "/store/headers.two" })
        {
            var bits = golden.Files[header].Length * 8L;
            flips.AddRange(Enumerable.Range(0, (int)bits).Select(bit => new Flip(header, bit)));
        }

        Run(golden, flips, "header bits (all)");
    }

    [Fact]
    public void Random_bits_of_journal_records_and_data_pages_flipped_are_detected_or_harmless()
    {
        var golden = Golden.Value;
        var seed = TestSeed.Next(output, nameof(Random_bits_of_journal_records_and_data_pages_flipped_are_detected_or_harmless));
        var random = new Random(seed);
        var count = CrashBudget.Count(20_000, share: 0.05);
        var flips = new List<Flip>(count);
        for (var i = 0; i < count; i++)
        {
            // Half in journal files (in records, where the file still holds some), half in data pages.
            var (path, length) = i % 2 == 0
                ? golden.JournalRegions[random.Next(golden.JournalRegions.Count)]
                : ("/store/voron.data", golden.DataFileWritten);
            // A spare (released) journal file holds only records older than any recovery reads.
            var inRecords = golden.Records.Exists(r => r.Path == path);
            flips.Add(new Flip(path, inRecords ? RecordBit(random, golden, path) : random.NextInt64(Math.Min(length, 64 * 1024) * 8)));
        }

        Run(golden, flips, $"random journal and data bits (seed {seed})");
    }

    private static long RecordBit(Random random, GoldenStore golden, string path)
    {
        var records = golden.Records.Where(r => r.Path == path).ToList();
        var record = records[random.Next(records.Count)];
        return (record.Offset * 8) + random.NextInt64(record.Length * 8);
    }

    private void Run(GoldenStore golden, List<Flip> flips, string what)
    {
        var outcomes = new System.Collections.Concurrent.ConcurrentDictionary<string, int>();
        var (states, failures) = StateRunner.Run(flips, (flip, found) =>
        {
            var outcome = golden.Check(flip, out var failure);
            outcomes.AddOrUpdate(outcome, 1, (_, n) => n + 1);
            if (failure != null)
            {
                found.Add($"{flip}: {failure}");
            }

            return 1;
        });

        output.WriteLine($"{what}: {string.Join(", ", outcomes.OrderBy(o => o.Key).Select(o => $"{o.Value} {o.Key}"))}");
        CrashBudget.Report(output, $"{flips.Count} bit flips ({what})", 0, failures);
        Assert.Equal(flips.Count, states);
    }

    private sealed record Flip(string Path, long Bit)
    {
        public override string ToString() => $"bit {Bit % 8} of byte {Bit / 8} of {Path}";
    }

    /// <summary>The store every flip starts from, its files' bytes, and what reading it must give.</summary>
    private sealed class GoldenStore
    {
        public required Dictionary<string, byte[]> Files { get; init; }

        public required ModelState Expected { get; init; }

        /// <summary>The contents without the last transaction (a flip in the last record drops it).</summary>
        public required ModelState WithoutLast { get; init; }

        public required List<(string Path, long Offset, long Length)> Records { get; init; }

        public required List<(string Path, long Length)> JournalRegions { get; init; }

        public required (string Path, long Offset, long Length) LastRecord { get; init; }

        public required long DataFileWritten { get; init; }

        public static GoldenStore Build()
        {
            using var fs = StoreFactory.NewFileSystem();
            var options = StoreFactory.Options(fs, journalFileSize: 64 * 1024);
            var env = StorageEnvironment.Open(options);
            var state = new ModelState();
            var records = new List<(string Path, long Offset, long Length)>();
            void Commit(params Change[] changes)
            {
                var start = env.Journal.Position;
                using (var tx = env.BeginWrite())
                {
                    foreach (var change in changes)
                    {
                        change.ApplyTo(tx);
                        change.ApplyTo(state);
                    }

                    tx.Commit();
                }

                var end = env.Journal.Position;
                var begin = end.FileNumber == start.FileNumber ? start.Offset : 0; // a rotation starts the record at 0
                records.Add((Voron.Journal.JournalFiles.PathOf("/store/journal", end.FileNumber), begin, end.Offset - begin));
            }

            // Records in three journal files: the first two flushes release the older ones, so the
            // older header copy names a journal file that is gone (a flip in the newer copy is then
            // detected, not silently repaired); the last three records are only in the journal.
            Commit([.. Enumerable.Range(0, 40).Select(i => Change.Put("t", $"key{i:D3}", CrashScenarios.Bytes(i, 50 + i)))]);
            Commit(Change.Put("t", "large", CrashScenarios.Bytes(100, 12_000)), Change.Put("u", "x", CrashScenarios.Bytes(101, 10)));
            env.FlushToDataFile();
            Commit(Change.Put("t", "large2", CrashScenarios.Bytes(106, 30_000)));
            Commit(Change.Put("u", "w", CrashScenarios.Bytes(107, 30_000)));
            env.FlushToDataFile();
            Commit(Change.Delete("t", "key005"), Change.Put("t", "key010", CrashScenarios.Bytes(102, 300)));
            Commit(Change.Put("u", "y", CrashScenarios.Bytes(103, 2000)));
            var withoutLast = state.Clone();
            Commit(Change.Put("t", "key020", CrashScenarios.Bytes(104, 77)), Change.Put("u", "z", CrashScenarios.Bytes(105, 5)));
            env.CloseWithoutFlush();

            var files = new Dictionary<string, byte[]>(StringComparer.Ordinal);
            foreach (var path in fs.ListFiles("/store", "*").Concat(fs.ListFiles("/store/journal", "*")))
            {
                if (path.EndsWith("voron.lock", StringComparison.Ordinal))
                {
                    continue;
                }

                using var file = fs.Open(path, FileOpenMode.OpenExisting);
                var bytes = new byte[file.Length];
                file.Read(0, bytes);
                files[path] = bytes;
            }

            var data = files["/store/voron.data"];
            return new GoldenStore
            {
                Files = files,
                Expected = state,
                WithoutLast = withoutLast,
                Records = [.. records.Where(r => files.ContainsKey(r.Path))],
                JournalRegions = [.. files.Where(f => f.Key.Contains("/journal/", StringComparison.Ordinal)).Select(f => (f.Key, (long)f.Value.Length))],
                LastRecord = records[^1],
                DataFileWritten = RoundUpToPage(data.AsSpan().LastIndexOfAnyExcept((byte)0) + 1),
            };
        }

        private static long RoundUpToPage(long length) => (length + Constants.PageSize - 1) / Constants.PageSize * Constants.PageSize;

        /// <summary>Opens a copy with <paramref name="flip"/> applied and reads everything; returns the outcome's name.</summary>
        public string Check(Flip flip, out string? failure)
        {
            failure = null;
            using var fs = new InMemoryFileSystem(256L << 20);
            foreach (var (path, bytes) in Files)
            {
                using var file = fs.Open(path, FileOpenMode.CreateNew);
                var used = bytes.AsSpan().LastIndexOfAnyExcept((byte)0) + 1; // the rest reads as zeros anyway
                file.Write(0, bytes.AsSpan(0, used));
                file.SetLength(bytes.Length);
                if (path == flip.Path)
                {
                    var b = new byte[] { (byte)(bytes[flip.Bit / 8] ^ (1 << (int)(flip.Bit % 8))) };
                    file.Write(flip.Bit / 8, b);
                }
            }

            var options = StorageEnvironmentOptions.ForFileSystem("/store", fs);
            options.BackgroundFlush = false;
            options.JournalFileSize = 64 * 1024;
            options.MaxDataFileSize = 128L << 20;
            try
            {
                using var env = StorageEnvironment.Open(options);
                string? difference;
                using (var read = env.BeginRead())
                {
                    difference = Expected.FindDifference(read);
                    if (difference != null && InLastRecord(flip) && WithoutLast.FindDifference(read) == null)
                    {
                        failure = "the last record was dropped as a torn tail: an acknowledged commit lost silently";
                        return "last record dropped silently";
                    }
                }

                env.CheckIntegrity();
                if (difference != null)
                {
                    failure = $"WRONG ANSWER: the store opened and reads differently: {difference}";
                    return "wrong answer";
                }

                return "harmless";
            }
            catch (CorruptionException e)
            {
                if (string.IsNullOrEmpty(e.File) || !e.Message.Contains(e.File, StringComparison.Ordinal))
                {
                    failure = $"the CorruptionException does not name the file: {e.Message}";
                }

                return "detected (corruption)";
            }
            catch (FormatVersionException e)
            {
                if (string.IsNullOrEmpty(e.File))
                {
                    failure = $"the FormatVersionException does not name the file: {e.Message}";
                }

                return "detected (format version)";
            }
            catch (Exception e)
            {
                failure = $"{e.GetType().Name} instead of a corruption error: {e.Message}";
                return "other exception";
            }
        }

        private bool InLastRecord(Flip flip) =>
            flip.Path == LastRecord.Path && flip.Bit / 8 >= LastRecord.Offset && flip.Bit / 8 < LastRecord.Offset + LastRecord.Length;
    }
}
