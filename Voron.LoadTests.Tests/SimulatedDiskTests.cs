using System.Diagnostics;
using System.Reflection;
using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Orders;
using Voron.LoadTests.Measurement;
using Xunit.Abstractions;

namespace Voron.LoadTests.Tests;

/// <summary>
/// Every store an experiment runs on <c>--flush-delay</c> waits the delay at each durable commit:
/// each path of <c>compare</c> and each engine of the key-value catalogue. Only lower bounds are
/// asserted (n commits take at least n delays: a sleep never ends early), so a busy machine cannot
/// fail them; a path that ignores the delay commits in far less.
/// </summary>
public sealed class SimulatedDiskTests(ITestOutputHelper output) : IDisposable
{
    private static readonly OrdersSize Tiny = new(50, 10, 100);

    private readonly TempDirectory _directory = new();

    public static TheoryData<string> Paths => [.. OrderPaths.All];

    /// <summary>
    /// A path that opened its store on the real disk (documents, SQL on Vfs=voron and sql-docs
    /// opened theirs without the context's disk; stock SQLite and LiteDB had only a report line)
    /// commits a few orders in a few milliseconds. Seeded: the delay, the number of writes and
    /// which are creates or status updates (each one durable commit) vary with VORON_SEED.
    /// </summary>
    [Theory]
    [MemberData(nameof(Paths))]
    public async Task Every_durable_write_of_a_compare_path_waits_the_simulated_delay(string name)
    {
        var seed = TestSeed.Next(output, $"{nameof(Every_durable_write_of_a_compare_path_waits_the_simulated_delay)}({name})");
        var random = new Random(seed);
        var delay = TimeSpan.FromMilliseconds(random.Next(40, 81));
        var writes = random.Next(2, 5);
        var disk = new SimulatedDisk(delay);
        var directory = _directory.Combine(name);
        Directory.CreateDirectory(directory);
        using var path = await OrderPaths.OpenAsync(name, directory, Tiny, disk);

        var elapsed = await OnCaller(path, async () =>
        {
            using var caller = path.CreateCaller();
            var clock = Stopwatch.StartNew();
            for (var i = 0; i < writes; i++)
            {
                if (random.Next(2) == 0)
                {
                    await caller.CreateOrderAsync(OrdersData.Order(Tiny.Orders + i, Tiny.Customers, Tiny.Products));
                }
                else
                {
                    // A status no order has yet, so every update changes its order: an update to the
                    // status the order already has writes nothing on the document path (nothing to commit).
                    Assert.True(await caller.UpdateStatusAsync(OrdersData.OrderId(random.NextInt64(Tiny.Orders)), $"test-{i}"), $"seed {seed}: an update from one caller conflicted");
                }
            }

            return clock.Elapsed;
        });

        output.WriteLine($"{name}: {writes} durable writes with a {delay.TotalMilliseconds} ms delay took {elapsed.TotalMilliseconds:F1} ms");
        Assert.True(elapsed >= delay * writes,
            $"seed {seed}: {name} made {writes} durable writes in {elapsed.TotalMilliseconds:F1} ms, less than {writes} × {delay.TotalMilliseconds} ms: it does not run on the simulated disk");
    }

    [EngineLoadsFact(KvEngineCatalog.Voron)]
    public void Voron_commits_wait_the_simulated_delay() => AssertCommitsWait(KvEngineCatalog.Voron);

    [EngineLoadsFact(KvEngineCatalog.VoronPortable)]
    public void Portable_voron_commits_wait_the_simulated_delay() => AssertCommitsWait(KvEngineCatalog.VoronPortable);

    [EngineLoadsFact(KvEngineCatalog.VoronCompact)]
    public void Compacting_voron_commits_wait_the_simulated_delay() => AssertCommitsWait(KvEngineCatalog.VoronCompact);

    [EngineLoadsFact(KvEngineCatalog.Sqlite)]
    public void Sqlite_commits_wait_the_simulated_delay() => AssertCommitsWait(KvEngineCatalog.Sqlite);

    [EngineLoadsFact(KvEngineCatalog.SqliteMmap)]
    public void Sqlite_mmap_commits_wait_the_simulated_delay() => AssertCommitsWait(KvEngineCatalog.SqliteMmap);

    [EngineLoadsFact(KvEngineCatalog.Lmdb)]
    public void Lmdb_commits_wait_the_simulated_delay() => AssertCommitsWait(KvEngineCatalog.Lmdb);

    /// <summary>A new engine in the catalogue gets a fact above, or this fails naming it.</summary>
    [Fact]
    public void Every_engine_of_the_catalogue_has_a_delay_test()
    {
        var tested = typeof(SimulatedDiskTests).GetMethods()
            .Select(m => m.GetCustomAttribute<EngineLoadsFactAttribute>()?.Engine)
            .OfType<string>()
            .ToHashSet();

        var missing = KvEngineCatalog.WithCompaction.Select(k => k.Name).Where(n => !tested.Contains(n)).ToList();
        Assert.True(missing.Count == 0, $"no delay test for the engine(s) {string.Join(", ", missing)}: add an [EngineLoadsFact] here");
    }

    /// <summary>Three one-put commits of engine <paramref name="name"/> on a disk that adds 50 ms to each flush take at least 150 ms.</summary>
    private void AssertCommitsWait(string name)
    {
        var delay = TimeSpan.FromMilliseconds(50);
        const int commits = 3;
        var kind = KvEngineCatalog.WithCompaction.Single(k => k.Name == name);
        var directory = _directory.Combine(name);
        Directory.CreateDirectory(directory);
        using var engine = kind.Open(directory, new SimulatedDisk(delay));

        var clock = Stopwatch.StartNew();
        for (var i = 0; i < commits; i++)
        {
            engine.WriteBatch([KvWrite.Put([(byte)i, 1, 2, 3], new byte[100])]);
        }

        clock.Stop();
        output.WriteLine($"{name}: {commits} commits with a {delay.TotalMilliseconds} ms delay took {clock.Elapsed.TotalMilliseconds:F1} ms");
        Assert.True(clock.Elapsed >= delay * commits,
            $"{name} made {commits} durable commits in {clock.Elapsed.TotalMilliseconds:F1} ms, less than {commits} × {delay.TotalMilliseconds} ms: it does not run on the simulated disk");
    }

    /// <summary>Runs <paramref name="work"/> as the path's callers run: on a thread of its own for a blocking API.</summary>
    private static Task<TimeSpan> OnCaller(IOrderPath path, Func<Task<TimeSpan>> work) =>
        path.UsesThreads ? Task.Factory.StartNew(() => work().GetAwaiter().GetResult(), TaskCreationOptions.LongRunning) : Task.Run(work);

    public void Dispose() => _directory.Dispose();
}
