namespace Voron.Testing.Crash;

/// <summary>
/// CT3: a random workload from a seed — commits of random puts (small, medium and overflow
/// values), deletes and dropped trees, merged operations, flushes, clean reopens and process
/// restarts, with a random journal file size; a quarter of them in lazy durability mode. Deterministic for its seed (one caller at a time),
/// so a crash point replays exactly.
/// </summary>
internal static class RandomWorkload
{
    private static readonly string[] Trees = ["alpha", "beta", "gamma"];

    public static CrashScenario Create(int seed)
    {
        var random = new Random(seed);
        var journalFileSize = random.Next(4) switch
        {
            0 => 8 * 1024,
            1 => 16 * 1024,
            2 => 64 * 1024,
            _ => 256 * 1024,
        };
        var steps = random.Next(10, 40);

        // Most workloads free pages (deletes, overwrites, dropped trees); some only insert.
        var mayFree = random.Next(4) != 0;
        var scenario = new CrashScenario($"random workload {seed}", run => Run(run, seed, steps, mayFree, multiPage: true), o => o.JournalFileSize = journalFileSize);
        return random.Next(4) == 0 ? scenario.InLazyMode(TimeSpan.FromHours(1)) : scenario; // a quarter in lazy mode
    }

    private static void Run(CrashRun run, int seed, int steps, bool mayFree, bool multiPage)
    {
        var random = new Random(seed ^ 0x5EED);
        var keys = new List<(string Tree, string Key)>();
        var unique = 0;
        run.Open();
        for (var step = 0; step < steps; step++)
        {
            var roll = random.Next(100);
            if (roll < 65)
            {
                run.Commit([.. Changes(random, keys, mayFree, multiPage, ref unique)]);
            }
            else if (roll < 80)
            {
                run.ExecuteAsync(Changes(random, keys, mayFree, multiPage, ref unique), fail: random.Next(6) == 0)
                    .ContinueWith(_ => { }, TaskScheduler.Default).Wait();
            }
            else if (roll < 92)
            {
                run.Flush();
            }
            else if (roll < 96)
            {
                run.Reopen();
            }
            else
            {
                run.RestartProcess();
            }
        }
    }

    private static List<Change> Changes(Random random, List<(string Tree, string Key)> keys, bool mayFree, bool multiPage, ref int unique)
    {
        var changes = new List<Change>();
        var count = random.Next(20) == 0 ? random.Next(50, 200) : random.Next(1, 8);
        for (var i = 0; i < count; i++)
        {
            var roll = random.Next(100);
            if (mayFree && roll < 20 && keys.Count > 0)
            {
                var index = random.Next(keys.Count);
                changes.Add(Change.Delete(keys[index].Tree, keys[index].Key));
                keys.RemoveAt(index);
            }
            else if (mayFree && roll == 20)
            {
                var tree = Trees[random.Next(Trees.Length)];
                changes.Add(Change.DropTree(tree));
                keys.RemoveAll(k => k.Tree == tree);
            }
            else if (mayFree && roll < 45 && keys.Count > 0)
            {
                // An overwrite; without frees only fresh keys are written, since replacing a value
                // can free its overflow run.
                var (tree, key) = keys[random.Next(keys.Count)];
                changes.Add(Change.Put(tree, key, CrashScenarios.Bytes(random.Next(), ValueLength(random, multiPage))));
            }
            else
            {
                var tree = Trees[random.Next(Trees.Length)];
                var key = $"k{unique++:D5}-{random.Next(1000)}";
                changes.Add(Change.Put(tree, key, CrashScenarios.Bytes(random.Next(), ValueLength(random, multiPage))));
                keys.Add((tree, key));
            }
        }

        // Every transaction writes a fresh key: one that changed nothing would use no transaction
        // id, and a merged operation cannot tell (StoreModel.Acknowledge).
        changes.Add(Change.Put(Trees[random.Next(Trees.Length)], $"k{unique++:D5}-fresh", CrashScenarios.Bytes(random.Next(), random.Next(0, 50))));
        return changes;
    }

    private static int ValueLength(Random random, bool multiPage) => random.Next(100) switch
    {
        < 70 => random.Next(0, 200),
        < 90 => random.Next(200, 3000),
        _ => multiPage ? random.Next(3000, 40_000) : random.Next(3000, 8000),
    };
}
