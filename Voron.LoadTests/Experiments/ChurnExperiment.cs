using Voron.LoadTests.Data;
using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Updates and deletes until the store's size stops growing, on every key-value engine: a store
/// loaded (untimed) with realistic JSON documents of 0.5–4 KiB, then rounds of as many operations
/// as there are records — 70% updates (a new document of a new size), 15% deletes, 15% inserts of
/// new keys, so the live data stays about the same — in durable transactions of 100, each round
/// ending with the engine's settle (Voron's data-file flush, SQLite's checkpoint). The run stops
/// when a round grew the store's main file by less than 2% (at least 3 rounds) or after the last
/// round. Reported: the files' size against the live data (keys and values), and the write
/// amplification: bytes the process sent to storage (/proc/self/io) over the bytes of keys and
/// values written, in the last round (steady state) and over all rounds. Every engine replays
/// exactly the same operations. The variant <c>voron-compact</c> is <c>voron</c> with the store
/// closed, compacted (<see cref="StorageEnvironment.CompactAsync"/>) and reopened after each
/// round's settle: its rows give the sizes before and after, and the compaction's time and bytes
/// apart from the round's. A <c>load</c> row per engine gives the files right after the initial
/// load (before any round), the main file against SQLite's.
/// </summary>
internal sealed class ChurnExperiment : IExperiment
{
    internal const int Seed = 20_261_201;
    private const int BatchSize = 100;
    private const int MinRounds = 3;
    private const double SteadyGrowth = 0.02;
    private const int MinBytes = 512;
    private const int MaxBytes = 4096;

    private readonly int? _records;
    private readonly int? _maxRounds;
    private readonly IReadOnlyList<string>? _engines;

    /// <param name="records">Records loaded; default 50,000 (3,000 with --quick).</param>
    /// <param name="maxRounds">The most rounds; default 12 (4 with --quick).</param>
    /// <param name="engines">The engines to run (of <see cref="KvEngineCatalog.WithCompaction"/>); all by default.</param>
    public ChurnExperiment(int? records = null, int? maxRounds = null, IReadOnlyList<string>? engines = null)
    {
        _records = records;
        _maxRounds = maxRounds;
        _engines = engines;
    }

    public string Name => "churn";

    public string Description => "updates and deletes until the store stops growing: file size against live data, write amplification (bytes to storage per byte written)";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var records = _records ?? (context.Quick ? 3_000 : 50_000);
        var maxRounds = _maxRounds ?? (context.Quick ? 4 : 12);
        var report = context.NewReport(Name, "Churn: updates and deletes to steady state");
        report.GroupMarkdownBy("table");
        report.AddFact("records", records);
        report.AddFact("recordBytes", $"{MinBytes}-{MaxBytes} (realistic JSON documents)");
        report.AddFact("operationsPerRound", records);
        report.AddFact("mix", "70% update (new document, new size), 15% delete, 15% insert of a new key");
        report.AddFact("transactionSize", BatchSize);
        report.AddFact("steadyState", $"a round grew the main file by less than {SteadyGrowth:P0}, after at least {MinRounds} rounds; at most {maxRounds} rounds");

        var engines = KvEngineCatalog.Available(context, report, _engines, KvEngineCatalog.WithCompaction);
        context.Progress($"building {records:N0} records and a pool of documents");
        var documents = new RealisticJson(Seed);
        var load = Enumerable.Range(0, records).Select(_ => documents.Next(MinBytes, MaxBytes)).ToArray();
        var pool = Enumerable.Range(0, 4096).Select(_ => documents.Next(MinBytes, MaxBytes)).ToArray();

        var loaded = new List<Loaded>();
        foreach (var kind in engines)
        {
            loaded.Add(await RunAsync(context, report, kind, load, pool, maxRounds).ConfigureAwait(false));
        }

        var sqlite = loaded.FirstOrDefault(l => l.Engine == KvEngineCatalog.Sqlite);
        foreach (var l in loaded)
        {
            report.AddRow(
                ("table", "load"),
                ("engine", l.Engine),
                ("fileMiB", StoreSize.MiB(l.FileBytes)),
                ("dataFileMiB", StoreSize.MiB(l.MainFileBytes)),
                ("liveMiB", StoreSize.MiB(l.LiveBytes)),
                ("fileOverLive", l.FileBytes / (double)l.LiveBytes),
                ("dataFileOverLive", l.MainFileBytes / (double)l.LiveBytes),
                ("dataFileVsSqlite", sqlite is { MainFileBytes: > 0 } ? l.MainFileBytes / (double)sqlite.MainFileBytes : null));
        }

        report.AddNote("writeAmplification: bytes written during the round(s) over the bytes of keys and values the operations wrote (a delete counts its key); " +
                       "steady... is the last round's. fileMiB: every file of the store after the round's settle; dataFileMiB: the engine's main file (Voron's data file, " +
                       "SQLite's database file, LMDB's data.mdb); fileOverLive: fileMiB over the live keys and values. The run is steady when a round grew the main file by less than 2%.");
        report.AddNote("load: every engine's files right after the initial load and its settle, before any round; dataFileOverLive: the main file over the live keys and values; " +
                       "dataFileVsSqlite: the main file over SQLite's database file after the same load (target: at most 1.2).");
        if (loaded.Any(l => l.Engine == KvEngineCatalog.VoronCompact))
        {
            report.AddNote("voron-compact: the voron store and operations, with the store closed, compacted (StorageEnvironment.CompactAsync, offline: it takes the store's lock) " +
                           "and reopened after each round's settle. Its fileMiB, dataFileMiB and fileOverLive are after the compaction, ...BeforeCompaction before it; " +
                           "compactSeconds is the compaction alone (CompactionResult.Duration; compactWallSeconds adds the close and the reopen), compactWrittenMiB the bytes it handed to write calls; " +
                           "the round's opsPerSec and write amplification leave the compaction out. Targets: fileOverLive at most 1.5 after compaction, at most 2.5 at steady state without it (the voron rows).");
        }

        report.AddNote(WriteCounters.Note(context.Device));
        return report;
    }

    /// <summary>An engine's files right after the initial load (and its settle), for the <c>load</c> rows.</summary>
    private sealed record Loaded(string Engine, long FileBytes, long MainFileBytes, long LiveBytes);

    private static async Task<Loaded> RunAsync(ExperimentContext context, Report report, KvEngineKind kind, byte[][] load, byte[][] pool, int maxRounds)
    {
        using var engine = kind.Open(context.NewDirectory($"churn-{kind.Name}"), context.Disk);
        context.Progress($"{kind.Name,-11} loading {load.Length:N0} records (not timed)");
        var live = new LiveSet();
        var loadWrites = new List<KvWrite>();
        for (var i = 0; i < load.Length; i++)
        {
            var key = KvDataSet.Key(i);
            live.Put(key, load[i].Length);
            loadWrites.Add(KvWrite.Put(key, load[i]));
        }

        foreach (var batch in loadWrites.Chunk(1_000))
        {
            engine.WriteBatch(batch);
        }

        engine.Settle();
        var loadedBytes = StoreSize.Of(engine.Directory);
        var mainFile = Path.Combine(engine.Directory, kind.MainFile);
        var previousMain = StoreSize.OfFile(mainFile);
        var loaded = new Loaded(kind.Name, loadedBytes, previousMain, live.Bytes);
        var compactable = kind.Name == KvEngineCatalog.VoronCompact
            ? engine as ICompactable ?? throw new InvalidOperationException($"{kind.Name}: the engine cannot compact.")
            : null;
        var random = new Random(Seed);
        long nextKey = load.Length;
        var total = WriteCounters.Zero(context.Device);
        long totalUser = 0;
        var round = 0;
        var steady = false;
        (WriteCounters Io, long User, double Seconds, long Size) last = default;
        while (round < maxRounds && !steady)
        {
            round++;
            var operations = new List<KvWrite>(load.Length);
            for (var i = 0; i < load.Length; i++)
            {
                var roll = random.NextDouble();
                if (roll < 0.7 && live.Count > 0)
                {
                    var key = live.Pick(random);
                    var value = pool[random.Next(pool.Length)];
                    live.Put(key, value.Length);
                    operations.Add(KvWrite.Put(key, value));
                }
                else if (roll < 0.85 && live.Count > 0)
                {
                    var key = live.Pick(random);
                    live.Remove(key);
                    operations.Add(KvWrite.Delete(key));
                }
                else
                {
                    var key = KvDataSet.Key(nextKey++);
                    var value = pool[random.Next(pool.Length)];
                    live.Put(key, value.Length);
                    operations.Add(KvWrite.Put(key, value));
                }
            }

            var user = operations.Sum(o => o.UserBytes);
            var before = WriteCounters.Read(context.Device);
            var watch = Stopwatch.StartNew();
            foreach (var batch in operations.Chunk(BatchSize))
            {
                engine.WriteBatch(batch);
            }

            engine.Settle();
            var seconds = watch.Elapsed.TotalSeconds;
            var io = WriteCounters.Read(context.Device) - before;
            var size = StoreSize.Of(engine.Directory);
            var main = StoreSize.OfFile(mainFile);
            var compaction = compactable == null ? null : await CompactAsync(context, compactable, size, main, live.Bytes).ConfigureAwait(false);
            if (compaction != null)
            {
                size = StoreSize.Of(engine.Directory);
                main = StoreSize.OfFile(mainFile);
            }

            total += io;
            totalUser += user;
            last = (io, user, seconds, size);
            steady = round >= MinRounds && main <= previousMain * (1 + SteadyGrowth);
            report.AddRow(
                ("table", "rounds"),
                ("engine", kind.Name),
                ("round", round),
                ("opsPerSec", operations.Count / seconds),
                ("fileMiB", StoreSize.MiB(size)),
                ("dataFileMiB", StoreSize.MiB(main)),
                ("liveMiB", StoreSize.MiB(live.Bytes)),
                ("fileOverLive", size / (double)live.Bytes),
                ("writeAmplification", io.HandedToWrite / (double?)user),
                ("storageWriteAmplification", io.ToStorage / (double?)user),
                ("deviceWriteAmplification", io.ToDevice / (double?)user),
                ("fileMiBBeforeCompaction", compaction is { } c1 ? StoreSize.MiB(c1.FileBytesBefore) : null),
                ("dataFileMiBBeforeCompaction", compaction is { } c2 ? StoreSize.MiB(c2.MainFileBytesBefore) : null),
                ("fileOverLiveBeforeCompaction", compaction is { } c3 ? c3.FileBytesBefore / (double)live.Bytes : null),
                ("compactSeconds", compaction?.Result.Duration.TotalSeconds),
                ("compactWallSeconds", compaction?.WallSeconds),
                ("compactWrittenMiB", compaction?.Written.HandedToWrite is { } compactWritten ? StoreSize.MiB(compactWritten) : null));
            context.Progress($"{kind.Name,-11} round {round}: {operations.Count / seconds:N0} ops/s, files {StoreSize.MiB(size):N1} MiB for {StoreSize.MiB(live.Bytes):N1} MiB live" +
                             (io.HandedToWrite is { } handed ? $", write amplification {handed / (double)user:F2}" : ""));
            previousMain = main;
        }

        report.AddRow(
            ("table", "summary"),
            ("engine", kind.Name),
            ("label", kind.Label),
            ("rounds", round),
            ("steady", steady),
            ("opsPerSec", load.Length / last.Seconds),
            ("loadedMiB", StoreSize.MiB(loadedBytes)),
            ("fileMiB", StoreSize.MiB(last.Size)),
            ("dataFileMiB", StoreSize.MiB(previousMain)),
            ("liveMiB", StoreSize.MiB(live.Bytes)),
            ("fileOverLive", last.Size / (double)live.Bytes),
            ("steadyWriteAmplification", last.Io.HandedToWrite / (double?)last.User),
            ("writeAmplification", total.HandedToWrite / (double?)totalUser),
            ("steadyStorageWriteAmplification", last.Io.ToStorage / (double?)last.User),
            ("steadyDeviceWriteAmplification", last.Io.ToDevice / (double?)last.User),
            ("files", Files(engine.Directory)));
        return loaded;
    }

    /// <summary>What one compaction of <c>voron-compact</c> did, with the sizes before it.</summary>
    private sealed record Compaction(CompactionResult Result, double WallSeconds, WriteCounters Written, long FileBytesBefore, long MainFileBytesBefore);

    /// <summary>Closes, compacts and reopens the store (<see cref="ICompactable"/>), timed and its writes counted apart from the round's.</summary>
    private static async Task<Compaction> CompactAsync(ExperimentContext context, ICompactable engine, long fileBytes, long mainFileBytes, long liveBytes)
    {
        var before = WriteCounters.Read(context.Device);
        var watch = Stopwatch.StartNew();
        var result = await engine.CompactAsync().ConfigureAwait(false);
        var wall = watch.Elapsed.TotalSeconds;
        var written = WriteCounters.Read(context.Device) - before;
        context.Progress($"{KvEngineCatalog.VoronCompact,-11} compacted in {result.Duration.TotalSeconds:F2} s: data file {StoreSize.MiB(mainFileBytes):N1} -> " +
                         $"{StoreSize.MiB(result.DataFileBytesAfter):N1} MiB for {StoreSize.MiB(liveBytes):N1} MiB live");
        return new Compaction(result, wall, written, fileBytes, mainFileBytes);
    }

    /// <summary>The store's files and their sizes, for the report.</summary>
    private static string Files(string directory) =>
        string.Join("; ", new DirectoryInfo(directory).EnumerateFiles("*", SearchOption.AllDirectories)
            .GroupBy(f => Path.GetExtension(f.Name) is { Length: > 0 } extension ? "*" + extension : f.Name)
            .Select(g => FormattableString.Invariant($"{g.Key} {g.Count()}x {StoreSize.MiB(g.Sum(f => f.Length)):F1} MiB")));

    /// <summary>The live keys and the bytes of keys and values they hold; a random live key in O(1).</summary>
    private sealed class LiveSet
    {
        private readonly List<byte[]> _keys = [];
        private readonly Dictionary<long, (int Index, int ValueBytes)> _index = [];

        public int Count => _keys.Count;

        public long Bytes { get; private set; }

        public byte[] Pick(Random random) => _keys[random.Next(_keys.Count)];

        public void Put(byte[] key, int valueBytes)
        {
            var id = Id(key);
            if (_index.TryGetValue(id, out var entry))
            {
                Bytes += valueBytes - entry.ValueBytes;
                _index[id] = (entry.Index, valueBytes);
                return;
            }

            _index[id] = (_keys.Count, valueBytes);
            _keys.Add(key);
            Bytes += key.Length + valueBytes;
        }

        public void Remove(byte[] key)
        {
            var id = Id(key);
            var (index, valueBytes) = _index[id];
            var last = _keys[^1];
            _keys[index] = last;
            _index[Id(last)] = (index, _index[Id(last)].ValueBytes);
            _keys.RemoveAt(_keys.Count - 1);
            _index.Remove(id);
            Bytes -= key.Length + valueBytes;
        }

        private static long Id(byte[] key) => System.Buffers.Binary.BinaryPrimitives.ReadInt64BigEndian(key);
    }
}
