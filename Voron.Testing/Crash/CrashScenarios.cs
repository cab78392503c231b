namespace Voron.Testing.Crash;

/// <summary>
/// The canonical scenarios whose every call is a crash point. Each one exercises a part of the
/// durability protocol; together they reach every kind of call the engine makes.
/// </summary>
internal static class CrashScenarios
{
    /// <summary>Deterministic scenarios: the same calls in the same order on every run.</summary>
    public static IReadOnlyList<CrashScenario> Enumerated { get; } =
    [
        new("single commits", SingleCommits),
        new("journal rotation", JournalRotation, o => o.JournalFileSize = 8 * 1024),
        new("flush and journal recycling", FlushAndRecycle, o => o.JournalFileSize = 8 * 1024),
        new("large values", LargeValues, o => o.JournalFileSize = 64 * 1024),
        new("deletes and dropped trees", DeletesAndDroppedTrees, o => o.JournalFileSize = 16 * 1024),
        new("recovery", Recovery, o => o.JournalFileSize = 8 * 1024),
        new("clean close and reopen", CleanReopen, o => o.JournalFileSize = 8 * 1024),
        new("forged values", ForgedValues, o => o.JournalFileSize = 64 * 1024),
        new("new pages written in place", InPlacePages, o =>
        {
            o.JournalFileSize = 64 * 1024;
            o.InPlaceNewPagesThreshold = Constants.PageSize; // every commit that creates a page writes it in place (IP1–IP3)
        }),
        new("spill to the scratch file", SpillToScratch, o =>
        {
            o.JournalFileSize = 32 * 1024;
            o.MaxPageVersionMemory = Constants.PageSize; // every commit spills, and the final flush reads from the scratch file
        }),
        new("journal files left early", LeftEarly, o => o.JournalFileSize = 64 * 1024),
    ];

    /// <summary>Concurrent merged operations: the calls vary from run to run.</summary>
    public static IReadOnlyList<CrashScenario> Merged { get; } =
    [
        new("merged async commits", run => MergedCommits(run, flushMidway: true), o =>
        {
            o.AsyncCommit = true;
            o.MaxBatchOperations = 4;
            o.JournalFileSize = 16 * 1024;
        }, Deterministic: false),
        new("merged sync commits", run => MergedCommits(run, flushMidway: false), o =>
        {
            o.AsyncCommit = false;
            o.MaxBatchOperations = 3;
            o.JournalFileSize = 12 * 1024;
        }, Deterministic: false),
    ];

    public static byte[] Bytes(int seed, int length)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    private static Change Put(string tree, string key, int length, int seed) => Change.Put(tree, key, Bytes(seed, length));

    /// <summary>Store creation, then one record per commit: new trees, an overwrite, a delete.</summary>
    private static void SingleCommits(CrashRun run)
    {
        run.Open();
        run.Commit(Put("a", "k1", 10, 1));
        run.Commit(Put("a", "k2", 100, 2), Put("b", "k1", 50, 3));
        run.Commit(Put("a", "k1", 200, 4));
        run.Commit(Change.Delete("a", "k2"), Put("b", "k2", 0, 5));
    }

    /// <summary>Records that fill journal files: rotation to new files (create, preallocate, sync, directory sync).</summary>
    private static void JournalRotation(CrashRun run)
    {
        run.Open();
        for (var i = 0; i < 10; i++)
        {
            run.Commit(Put("t", $"key{i:D3}", 300 + (i * 50), i), Put("u", $"key{i % 3}", 40, 100 + i));
        }
    }

    /// <summary>Flushes to the data file (growth, writes, fsync, header), journal files released to spares
    /// and deleted, spares reused by later rotations.</summary>
    private static void FlushAndRecycle(CrashRun run)
    {
        run.Open();
        for (var round = 0; round < 3; round++)
        {
            for (var i = 0; i < 5; i++)
            {
                run.Commit(Put("t", $"r{round}-{i}", 500, (round * 10) + i), Put("v", $"k{i}", 20 + round, 50 + i));
            }

            run.Flush();
        }

        run.Commit(Put("t", "last", 10, 99));
    }

    /// <summary>Values on overflow runs of several pages (records of many sectors, gathered data-file writes,
    /// a record bigger than a journal file, the data file growing).</summary>
    private static void LargeValues(CrashRun run)
    {
        run.Open();
        run.Commit(Put("big", "three-pages", 20_000, 1));
        run.Commit(Put("big", "ten-pages", 80_000, 2), Put("small", "a", 10, 3));
        run.Flush();
        run.Commit(Put("big", "one-page", 7_000, 4));
        run.Commit(Put("big", "five-pages", 40_000, 5));
        run.Flush();
        run.Commit(Put("big", "grows-the-data-file", 600_000, 6));
        run.Flush();
    }

    /// <summary>
    /// New pages written in place before their record (IP2): overflow runs and the leaves of an
    /// in-order load; a later record that rewrites a named page, flushed (R10: the later record
    /// defines it); a freed run allocated again while the record that named it is still queued
    /// (IP1) and after it was flushed; recovery of named pages inside the scenario.
    /// </summary>
    private static void InPlacePages(CrashRun run)
    {
        run.Open();
        run.Commit(Put("big", "three-pages", 20_000, 1));
        run.Commit([.. Enumerable.Range(0, 120).Select(i => Put("t", $"key{i:D4}", 150, 10 + i))]);
        run.Commit(Put("t", "key0005", 150, 200), Put("big", "five-pages", 40_000, 2));
        run.Flush();
        run.Commit(Change.Delete("big", "three-pages"));
        run.Commit(Put("big", "again-three-pages", 20_000, 3), Put("t", "key0050", 160, 201));
        run.RestartProcess();
        run.Commit(Put("big", "after-recovery", 30_000, 4));
        run.Flush();
        run.Commit(Change.Delete("big", "after-recovery"), Put("t", "key0100", 10, 202));
        run.Commit(Put("big", "reuses-a-flushed-run", 30_000, 5));
    }

    /// <summary>
    /// Journal files left before they are full (J14, the timely release's steps): a file left with
    /// records not yet flushed, then the flush that names the next file's start and releases it; a
    /// file left with every record flushed, then the flush with nothing to write that moves the
    /// header alone (FL11); a restart with a left file not yet released; commits into each new file.
    /// </summary>
    private static void LeftEarly(CrashRun run)
    {
        run.Open();
        run.Commit(Put("t", "a", 300, 1));
        run.Commit(Put("t", "b", 300, 2), Put("u", "x", 40, 3));
        run.LeaveJournalFile();
        run.Flush();
        run.Commit(Put("t", "c", 500, 4));
        run.Flush();
        run.LeaveJournalFile();
        run.Flush();
        run.Commit(Put("t", "d", 200, 5));
        run.LeaveJournalFile();
        run.RestartProcess();
        run.Commit(Put("t", "e", 200, 6));
        run.LeaveJournalFile();
        run.Commit(Put("t", "f", 100, 7));
        run.Flush();
    }

    /// <summary>Page splits, merges and frees: many keys in, most out, a tree dropped.</summary>
    private static void DeletesAndDroppedTrees(CrashRun run)
    {
        run.Open();
        for (var batch = 0; batch < 3; batch++)
        {
            run.Commit([.. Enumerable.Range(0, 60).Select(i => Put("t", $"key{(batch * 60) + i:D4}", 120, (batch * 60) + i))]);
        }

        run.Commit(Put("doomed", "x", 100, 500), Put("doomed", "y", 100, 501));
        run.Flush();
        run.Commit([.. Enumerable.Range(0, 150).Select(i => Change.Delete("t", $"key{i:D4}"))]);
        run.Commit(Change.DropTree("doomed"));
        run.Flush();
        run.Commit(Put("t", "after", 10, 600));
    }

    /// <summary>Recovery runs inside the scenario, so every call it makes (data-file writes and sync, the
    /// header, deleting journal files past the end, releasing replayed ones) is a crash point.</summary>
    private static void Recovery(CrashRun run)
    {
        run.Open();
        for (var i = 0; i < 6; i++)
        {
            run.Commit(Put("t", $"k{i}", 700, i));
        }

        run.RestartProcess();
        run.Commit(Put("t", "after-first-recovery", 100, 10));
        run.Flush();
        run.Commit(Put("t", "unflushed", 100, 11));
        run.RestartProcess();
        run.Commit(Put("t", "after-second-recovery", 100, 12));
    }

    /// <summary>A clean close flushes everything; the next open has nothing to replay.</summary>
    private static void CleanReopen(CrashRun run)
    {
        run.Open();
        for (var i = 0; i < 4; i++)
        {
            run.Commit(Put("t", $"k{i}", 900, i));
        }

        run.Reopen();
        run.Commit(Put("t", "k0", 10, 20));
        run.Reopen();
        run.Commit(Change.Delete("t", "k1"));
    }

    /// <summary>
    /// The class "user values crafted as journal records": values full of forged record headers
    /// (ForgedRecords) go through journal records torn at every crash point, through released
    /// journal files and new ones, and are overwritten (diffs) and deleted; no crash state may take
    /// a forged header for a record (the oracle).
    /// </summary>
    private static void ForgedValues(CrashRun run)
    {
        run.Open();
        run.Commit(Change.Put("v", "forged-a", ForgedRecords.Value(1, 8)));
        run.Commit(Change.Put("v", "forged-b", ForgedRecords.Value(2, 4)), Put("w", "small", 30, 3));
        run.Flush();
        for (var i = 0; i < 3; i++)
        {
            run.Commit(Change.Put("v", $"forged-{i}", ForgedRecords.Value(10 + i, 6)));
        }

        run.Commit(Change.Put("v", "forged-a", ForgedRecords.Value(20, 8)));
        run.Flush();
        run.Commit(Change.Delete("v", "forged-b"), Change.Put("v", "forged-c", ForgedRecords.Value(21, 3)));
    }

    /// <summary>
    /// The memory bound (PageTable PT8, Scratch/ScratchFile.cs): a reader holds the flush back
    /// while commits overwrite its pages, so versions spill to the scratch file at commit — its
    /// creation, growth and writes are crash points — and are flushed from it once the reader ends.
    /// The scratch file holds nothing durable: whatever a crash leaves of it, the journal recovers
    /// every acknowledged commit. The reader must read its snapshot throughout.
    /// </summary>
    private static void SpillToScratch(CrashRun run)
    {
        run.Open();
        run.Commit([.. Enumerable.Range(0, 30).Select(i => Put("t", $"k{i:D2}", 300, i))]);
        var reader = run.Environment.BeginRead();
        try
        {
            for (var round = 0; round < 4; round++)
            {
                run.Commit([.. Enumerable.Range(0, 30).Where(i => i % 3 == round % 3).Select(i => Put("t", $"k{i:D2}", 300, 100 + (round * 30) + i))]);
            }

            run.Flush(); // held back by the reader: nothing reaches the data file
            if (run.Environment.PageTable.SpilledBytes == 0 || run.Environment.PageTable.Scratch.WrittenBytes == 0)
            {
                throw new CrashCheckException("the scenario spilled nothing to the scratch file: it no longer tests what it is for");
            }

            var tree = reader.OpenTree("t") ?? throw new CrashCheckException("the long reader lost its tree");
            for (var i = 0; i < 30; i++)
            {
                if (!tree.Get(System.Text.Encoding.UTF8.GetBytes($"k{i:D2}"))!.AsSpan().SequenceEqual(Bytes(i, 300)))
                {
                    throw new CrashCheckException($"the long reader read k{i:D2} from a later snapshot (a spilled version came back wrong)");
                }
            }
        }
        finally
        {
            reader.Dispose();
        }

        run.Flush(); // writes spilled versions from the scratch file to the data file
        run.Commit(Put("t", "after", 20, 999));
        run.Reopen();
    }

    /// <summary>Three callers submit operations to the merger (one in five fails on purpose), an explicit
    /// transaction cuts in, and optionally a flush runs beside them.</summary>
    private static void MergedCommits(CrashRun run, bool flushMidway)
    {
        run.Open();
        run.Commit(Put("base", "k", 100, 1));
        var callers = Enumerable.Range(0, 3).Select(caller => Task.Run(async () =>
        {
            for (var i = 0; i < 8; i++)
            {
                try
                {
                    await run.ExecuteAsync([Put("m", $"c{caller}-{i:D2}", 200 + (i * 30), (caller * 100) + i)], fail: i % 5 == 4);
                }
                catch (IntentionalOperationFailure)
                {
                    // expected: the operation's changes are rolled back
                }
            }
        })).ToList();
        if (flushMidway)
        {
            callers.Add(Task.Run(() =>
            {
                Thread.Sleep(1);
                run.Flush();
            }));
        }

        try
        {
            run.Commit(Put("explicit", "k", 300, 7));
        }
        catch
        {
            // The callers must not outlive the scenario: the harness settles the model and takes
            // the disk's picture once it returns (a store a commit failure left usable keeps
            // taking their operations).
            Task.WaitAny([Task.WhenAll(callers)], CrashHarness.SettleTimeout);
            throw;
        }

        run.WaitForCallers(callers);
        run.Commit(Put("explicit", "last", 30, 8));
    }
}
