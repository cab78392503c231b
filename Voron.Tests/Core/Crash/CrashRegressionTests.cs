namespace Voron.Tests.Core.Crash;

/// <summary>
/// CT20. one deterministic test per bug the crash tests found, named for the behaviour that must
/// hold, with what broke and how it was found. While a bug is open its test is skipped
/// ("engine bug: ...") and the broad tests steer around it behind a named switch that an
/// environment variable turns off; today none is open (docs/durability.md, Known gaps).
/// </summary>
public sealed class CrashRegressionTests
{
    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    /// <summary>
    /// What broke: transaction 1 stores two one-page values on pages P and P + 1; transaction 2
    /// deletes both and stores a two-page value, which the allocator places on P..P+1. One flush
    /// covers both: for every page number they touched it writes the newest version — P's
    /// two-page run, then P + 1's one-page value from transaction 1, which no longer exists — over
    /// the run's second page. The run then fails its checksum: every read of the value and
    /// CheckIntegrity throw CorruptionException; nothing on disk can restore it once the journal
    /// is recycled. Found by RandomCrashTests (seed 119458005, workloads 4 and 15, with
    /// VORON_NO_WORKAROUNDS=1) and StoreModelTests (VORON_SEED=59074828).
    /// Fix: the flusher must skip versions of pages that a later transaction in the flush freed or
    /// covered with a run (e.g. carry freed page numbers in UnflushedTransaction and drop older
    /// versions of them, or write pages in transaction order).
    /// </summary>
    [Fact]
    public void Flush_does_not_write_a_freed_page_over_a_newer_overflow_run()
    {
        using var fs = StoreFactory.NewFileSystem();
        using var env = StorageEnvironment.Open(StoreFactory.Options(fs));
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            tree.Put(B("a"), new byte[5000]);
            tree.Put(B("b"), new byte[5000]);
            tx.Commit();
        }

        var value = CrashScenarios.Bytes(7, 10_000);
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            tree.Delete(B("a"));
            tree.Delete(B("b"));
            tree.Put(B("c"), value);
            tx.Commit();
        }

        env.FlushToDataFile();

        env.CheckIntegrity();
        using var read = env.BeginRead();
        Assert.Equal(value, read.OpenTree("t")!.Get(B("c")));
    }

    /// <summary>
    /// What broke: the first flush writes header revision 2 to headers.two, which it creates
    /// (HeaderFile.Write opens it OpenOrCreate), syncs the file — but never the store directory,
    /// so the new name is not durable (F2). The flush then releases the journal files the new
    /// header no longer needs and syncs the journal directory. A power loss now can keep the
    /// released journals' renames and lose headers.two: recovery starts from headers.one
    /// (revision 1: journal file 1, offset 0), which is gone, and throws CorruptionException —
    /// the store with every acknowledged commit in it cannot be opened. Recovery's own header
    /// write creates headers.two the same way. Found by EnumeratedCrashTests ("flush and journal
    /// recycling", "large values") and RandomCrashTests with the workaround off.
    /// Fix: HeaderFile.Write syncs the store directory after creating a header file.
    /// </summary>
    [Fact]
    public void Power_loss_after_the_first_flush_keeps_the_second_header_copy()
    {
        using var machine = new CrashFileSystem(1, CrashRun.Directory);
        var model = new StoreModel();
        var run = new CrashRun(machine, model, o => o.JournalFileSize = 32 * 1024);
        run.Open();
        for (var i = 0; i < 16; i++) // enough to fill journal files: records hold page diffs
        {
            run.Commit(Change.Put("t", $"k{i}", CrashScenarios.Bytes(i, 2000)));
        }

        run.Flush();
        run.Finish(CrashHarness.SettleTimeout);

        using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 1));
        CrashVerifier.Verify(crashed, model, o => o.JournalFileSize = 32 * 1024, reopen: true);
    }

    /// <summary>
    /// What broke: store creation creates voron.data and writes its identity page, creates
    /// headers.one and writes revision 1 into it, and only then syncs the store directory. A crash
    /// in between leaves, depending on what reached the disk: an empty headers.one (its creation
    /// durable, its write not) or a torn one (sectors are not assumed atomic), and no other copy —
    /// every later open throws "neither header copy is valid" although nothing was ever committed,
    /// and the directory must be cleaned by hand; or, where the file system reorders directory
    /// changes, a valid headers.one without voron.data — open throws FileNotFoundException. Found
    /// by EnumeratedCrashTests (crash points 5..8 of every scenario) with the workaround off.
    /// Fix: sync the store directory after creating voron.data; when no header copy is valid but
    /// the store holds nothing yet (a data file of at most its identity page, no journal files),
    /// finish the creation instead of refusing (or write the first header under a temporary name
    /// and rename it into place, then sync the directory).
    /// </summary>
    [Fact]
    public void Open_after_a_crash_during_store_creation_creates_or_opens_the_store()
    {
        var failures = new List<string>();
        for (var point = 0; point < 16; point++)
        {
            using var machine = new CrashFileSystem(point, CrashRun.Directory) { CrashAtCall = point };
            var model = new StoreModel();
            var run = new CrashRun(machine, model);
            try
            {
                run.Open();
                run.Commit(Change.Put("t", "k", B("v")));
            }
            catch (Exception) when (machine.HasCrashed)
            {
                // the crash point
            }

            run.Finish(CrashHarness.SettleTimeout);
            foreach (var damage in PowerLossPolicy.AllModels)
            {
                for (var seed = 0; seed < 4; seed++)
                {
                    using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(damage, seed));
                    try
                    {
                        CrashVerifier.Verify(crashed, model, null, reopen: false);
                    }
                    catch (CrashCheckException e)
                    {
                        failures.Add($"crash point {point} ({machine.CrashCall}), {damage} seed {seed}: {e.Message}");
                    }
                }
            }
        }

        Assert.True(failures.Count == 0, $"{failures.Count} failures:\n{string.Join("\n", failures.Take(10))}");
    }

    /// <summary>
    /// What broke: Open creates the store's directory when it is missing but never syncs its
    /// parent directory, so the new directory entry is not durable (F2). Commits are acknowledged
    /// after their journal flush, yet a power loss can drop the whole directory — and every
    /// acknowledged commit with it; the next open silently creates an empty store. Found by the
    /// crash simulator's directory model (CrashRun starts from an existing directory to stay clear
    /// of it).
    /// Fix: after creating the store directory (and any missing parents), SyncDirectory each parent.
    /// </summary>
    [Fact]
    public void Power_loss_after_opening_a_new_store_directory_keeps_the_directory()
    {
        using var machine = new CrashFileSystem(3); // "/store" does not exist yet
        var model = new StoreModel();
        var run = new CrashRun(machine, model);
        run.Open();
        run.Commit(Change.Put("t", "acknowledged", B("value")));
        run.Finish(CrashHarness.SettleTimeout);

        using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 3));
        CrashVerifier.Verify(crashed, model, null, reopen: false);
    }

    /// <summary>
    /// What broke: the header records the recovery start at the end of journal file N (the last
    /// flushed transaction filled it). The next record went to file N + 1 and was torn by a crash
    /// with its header sector intact. Recovery follows the rotation into N + 1 (D3), finds the torn
    /// record, replays nothing, and so writes no new header — but then releases every journal
    /// file before its end position (N + 1, 0), including file N, which the durable header still
    /// names as the recovery start (J6 broken). The next open — after a clean close with nothing
    /// to flush, or a crash before the next flush — throws CorruptionException "the journal file
    /// holding the recovery start position is missing": a store with every acknowledged commit
    /// intact cannot be opened. Found by RecoveryCrashTests (seed 1216733930, "flush and journal
    /// recycling" crash point 45, TornBytes policy seed 2047316388).
    /// Fix (StorageEnvironment.Open.cs): release journal files before the durable header's
    /// position, not before the end of the log: journal.ReleaseBefore(new JournalPosition(
    /// header.JournalFile, header.JournalOffset)).
    /// </summary>
    [Fact]
    public void Reopen_after_recovering_a_torn_record_in_a_new_journal_file_finds_the_recovery_start()
    {
        using var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs, journalFileSize: 32 * 1024);
        var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("flushed"), CrashScenarios.Bytes(1, 3000)); // incompressible: the journal compresses records
            tx.Commit();
        }

        env.FlushToDataFile();
        var firstFile = env.Journal.Position.FileNumber;
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("torn"), CrashScenarios.Bytes(2, 30_000)); // too big for the rest of the file: rotates
            tx.Commit();
        }

        Assert.Equal(firstFile + 1, env.Journal.Position.FileNumber);
        env.CloseWithoutFlush();

        // The crash tore the second record: its header sector reached the disk, a payload sector did
        // not (it reads as the zeros the new file held).
        using (var journal = fs.Open(Voron.Journal.JournalFiles.PathOf("/store/journal", firstFile + 1), Voron.Platform.FileOpenMode.OpenExisting))
        {
            journal.Write(4096, new byte[512]);
        }

        StorageEnvironment.Open(options).Dispose(); // recovers (nothing to replay), closes cleanly

        using var reopened = StorageEnvironment.Open(options);
        using var read = reopened.BeginRead();
        Assert.NotNull(read.OpenTree("t")!.Get(B("flushed")));
        Assert.Null(read.OpenTree("t")!.Get(B("torn")));
    }

    /// <summary>
    /// What broke: Dispose flushes committed pages to the data file first and means to ignore an
    /// I/O failure there (the journal still holds everything). But DataFileFlusher.Flush wraps
    /// the IOException in EnvironmentFailedException, which Close does not catch: Dispose throws,
    /// and the lock, the mapping and the journal file are never released, so the store cannot be
    /// opened again in this process (StoreLockedException) until it exits. Found by IoFaultTests
    /// ("clean close and reopen": every injected failure in the final flush).
    /// Fix (StorageEnvironment.Close): catch EnvironmentFailedException around the final flush
    /// too, or release the lock and resources in a finally.
    /// </summary>
    [Fact]
    public void Dispose_whose_final_flush_fails_releases_the_store_for_a_reopen()
    {
        using var machine = CrashHarness.Start(4, out var model);
        var run = new CrashRun(machine, model);
        run.Open();
        run.Commit(Change.Put("t", "k", B("acknowledged")));
        machine.Faults = call => call.Kind == IoCallKind.Write && call.Path.EndsWith("voron.data", StringComparison.Ordinal) ? IoFault.IoError : IoFault.None;

        try
        {
            run.Environment.Dispose(); // the final flush fails: nothing is lost, the journal has it
        }
        catch (EnvironmentFailedException)
        {
            // Reporting the failure is fine; keeping the store locked is not.
        }

        machine.Faults = null;
        CrashVerifier.Verify(machine, model, null, reopen: true);
    }

    /// <summary>
    /// What broke: in lazy mode two commits write records N and N + 1 without a flush between
    /// them; the disk may persist them in either order, and a power loss keeps N + 1 but not N.
    /// Recovery correctly ends the log before N (a lazy record after a broken one proves
    /// nothing) — but the writer then resumes in N's slot and leaves N + 1's bytes after it. The
    /// next transaction gets id N and a record of the same size, so once it is flushed (a clean
    /// close), the next recovery finds the stale N + 1 right after it, intact and numbered as its
    /// successor, and replays it: diffs computed against page versions of the discarded timeline,
    /// applied to the new one. The data file's pages then fail their checksums (or, for pages
    /// the stale record stores whole, silently hold the lost timeline's contents), and the state
    /// it carries replaces the real one. Found by LazyModeCrashTests ("lazy clean close and
    /// reopen" crash point 16, KeepOrDrop; "lazy journal rotation" crash point 16, TornSectors).
    /// Fix: before the writer resumes after a discarded tail, make the rest of the journal file
    /// unreadable as records (overwrite it with zeros and sync), or chain records (each header
    /// holding the previous record's checksum) so recovery rejects a record from another timeline.
    /// </summary>
    [Fact]
    public void Lazy_recovery_never_replays_a_record_left_after_the_discarded_tail()
    {
        using var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs, journalFileSize: 64 * 1024);
        options.Durability = DurabilityMode.Lazy;
        options.LazyFlushInterval = TimeSpan.FromHours(1);
        var env = StorageEnvironment.Open(options);
        var first = env.Journal.Position;
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("lost"), CrashScenarios.Bytes(1, 100));
            tx.Commit();
        }

        var second = env.Journal.Position;
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("stale"), CrashScenarios.Bytes(2, 100));
            tx.Commit();
        }

        env.CloseWithoutFlush();
        using (var journal = fs.Open(Voron.Journal.JournalFiles.PathOf("/store/journal", first.FileNumber), Voron.Platform.FileOpenMode.OpenExisting))
        {
            journal.Write(first.Offset, new byte[second.Offset - first.Offset]); // the power loss kept the second record, not the first
        }

        env = StorageEnvironment.Open(options);
        Assert.Equal(0, env.LastCommittedTransactionId);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("new"), CrashScenarios.Bytes(3, 100));
            tx.Commit();
        }

        env.Dispose();

        using var reopened = StorageEnvironment.Open(options);
        Assert.Equal(1, reopened.LastCommittedTransactionId);
        reopened.CheckIntegrity();
        using var read = reopened.BeginRead();
        var tree = read.OpenTree("t")!;
        Assert.NotNull(tree.Get(B("new")));
        Assert.Null(tree.Get(B("stale")));
    }

    /// <summary>
    /// What broke: in lazy mode, commits write journal records without a flush; a flush to the
    /// data file then writes those transactions' pages, syncs the data file and writes the new
    /// header — without first syncing the journal. A power loss after the data file's sync and
    /// before the header's leaves a disk where the data file holds the pages of transactions
    /// whose journal records are lost: recovery starts from the old header, replays the durable
    /// records only, and the store answers with pages of later transactions over the state of an
    /// earlier one (here: key "a" deleted, key "b" missing — neither state that ever existed), or
    /// fails page checksums. Found by LazyModeCrashTests ("lazy deletes and dropped trees", crash
    /// points 46..51, seed 1919244506: wrong keys and missing trees at transaction 4).
    /// Fix (DataFileFlusher.FlushLocked): sync the journal (under the journal lock) before
    /// writing any data-file page — the write-ahead rule — when it has lazy records.
    /// </summary>
    [Fact]
    public void Lazy_flush_never_writes_the_data_file_ahead_of_the_durable_journal()
    {
        var scenario = new CrashScenario("flush", run =>
        {
            run.Open();
            run.Commit(Change.Put("t", "a", B("first")));
            run.Environment.FlushToDataFile(); // durable: the data file and the header hold transaction 1
            run.Model.MarkDurable(run.Environment.LastFlushedTransactionId);
            run.Commit(Change.Put("t", "b", B("second")));
            run.Commit(Change.Delete("t", "a"));
            run.Environment.FlushToDataFile(); // the crash point: its header write
        }).InLazyMode(TimeSpan.FromHours(1));
        using var dryRun = CrashHarness.RunToCrash(scenario, 5, crashAt: null, out _);
        var headerWrite = dryRun.Calls.Last(c => c.Kind == IoCallKind.Write && c.Path.Contains("/headers.", StringComparison.Ordinal)).Index;

        var failures = CrashHarness.CheckCrashPoint(scenario, 5, headerWrite, [new PowerLossPolicy(DamageModel.DropAll, 5)], reopen: false);

        Assert.True(failures.Count == 0, string.Join("\n", failures));
    }

    /// <summary>
    /// What broke: the same write-ahead rule as the flush above, in recovery. In lazy mode a
    /// process that dies leaves its last commits' journal records in the OS cache only. The next
    /// open replays them into the data file, syncs it, and writes a new header — without syncing
    /// the journal it read them from. A power loss after the data file's sync and before the
    /// header's leaves the data file holding those transactions' pages while their records are
    /// lost: the next recovery ends before them, over a data file that is ahead of it. Found by
    /// LazyModeCrashTests ("lazy recovery", crash points 65..69, seed 565896482: a key of
    /// transaction 8 visible at transaction 7).
    /// Fix (StorageEnvironment.OpenCore / Recover): sync the journal files recovery read before
    /// writing the data file (or before its sync, at the latest before the header).
    /// </summary>
    [Fact]
    public void Lazy_recovery_after_a_restart_never_writes_the_data_file_ahead_of_the_durable_journal()
    {
        var scenario = new CrashScenario("restart", run =>
        {
            run.Open();
            run.Commit(Change.Put("t", "a", B("first")));
            run.Environment.FlushToDataFile();
            run.Model.MarkDurable(run.Environment.LastFlushedTransactionId);
            run.Commit(Change.Put("t", "b", B("second"))); // a lazy record, in the OS cache only
            var environment = run.Environment;
            environment.CloseWithoutFlush(); // the process dies; the next open recovers "b" from the cache
            StorageEnvironment.Open(CrashRun.Options(run.FileSystem, o =>
            {
                o.Durability = DurabilityMode.Lazy;
                o.LazyFlushInterval = TimeSpan.FromHours(1);
            })).CloseWithoutFlush();
        }).InLazyMode(TimeSpan.FromHours(1));
        using var dryRun = CrashHarness.RunToCrash(scenario, 6, crashAt: null, out _);
        var recoveryHeaderWrite = dryRun.Calls.Last(c => c.Kind == IoCallKind.Write && c.Path.Contains("/headers.", StringComparison.Ordinal)).Index;

        var failures = CrashHarness.CheckCrashPoint(scenario, 6, recoveryHeaderWrite, [new PowerLossPolicy(DamageModel.DropAll, 6)], reopen: false);

        Assert.True(failures.Count == 0, string.Join("\n", failures));
    }

    /// <summary>
    /// What broke: Dispose's final flush syncs the data file and writes the next header copy,
    /// whose FlushData fails. On Linux the failed pages are marked clean (fsyncgate): reads still
    /// return the new header while the disk may keep the old one, and a later fsync reports
    /// nothing. Dispose swallows the failure (the journal still holds everything — true), but a
    /// reopen in the same boot reads the cached header as if durable and releases the journal
    /// files before its recovery start. After a power loss the disk's header is the old one and
    /// names a journal file that is gone: "the journal file holding the recovery start position
    /// is missing", the store cannot be opened. Found by FsyncFailureTests ("clean close and
    /// reopen", fault at call 45 FlushData headers.one, seed 747717155, then power loss).
    /// Fix: never release journal files on the strength of a header this process did not make
    /// durable itself — on open, rewrite the header read (next revision, FlushData) before
    /// ReleaseBefore; or have Dispose not hide a failed header sync from the next open.
    /// </summary>
    [Fact]
    public void Reopen_after_a_failed_header_fsync_keeps_the_journal_the_durable_header_needs()
    {
        using var machine = new CrashFileSystem(7, CrashRun.Directory);
        var model = new StoreModel();
        var run = new CrashRun(machine, model, o => o.JournalFileSize = 8 * 1024);
        run.Open();
        for (var i = 0; i < 6; i++)
        {
            run.Commit(Change.Put("t", $"k{i}", CrashScenarios.Bytes(i, 900))); // a journal file each
        }

        run.Flush();
        for (var i = 6; i < 12; i++)
        {
            run.Commit(Change.Put("t", $"k{i}", CrashScenarios.Bytes(i, 900)));
        }

        machine.Faults = call => call.Kind == IoCallKind.FlushData && call.Path.Contains("/headers.", StringComparison.Ordinal)
            ? IoFault.FsyncFailureLosingTheWrites
            : IoFault.None;
        var environment = run.Environment;
        try
        {
            environment.Dispose(); // its final flush's header sync fails; Dispose does not say so
        }
        catch (EnvironmentFailedException)
        {
            // reporting it is fine
        }

        machine.Faults = null;
        StorageEnvironment.Open(CrashRun.Options(machine, o => o.JournalFileSize = 8 * 1024)).CloseWithoutFlush(); // the same boot: the cache shows the new header

        using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 7));
        CrashVerifier.Verify(crashed, model, o => o.JournalFileSize = 8 * 1024, reopen: false);
    }

    /// <summary>
    /// What broke (after the fix of the test above, which rewrites the header on open): the
    /// first flush creates headers.two and then syncs the store directory so that its name is
    /// durable — and that directory sync fails (or the header's own fsync fails first, so it never
    /// runs). Dispose hides the failure; the reopen reads headers.two from the OS cache, writes the
    /// next revision to headers.one and syncs that file, but nothing ever syncs the store
    /// directory again: HeaderFile.Write does so only when it creates a file, and headers.two
    /// exists (in the cache). The next flush writes a newer revision into headers.two and releases
    /// the journal files before it; a power loss then drops headers.two's name, the store opens
    /// from headers.one, and the journal file it names is gone: the store cannot be opened. Found
    /// by IoFaultTests and FsyncFailureTests ("clean close and reopen": IoError at call 33,
    /// SyncDirectory /store, seed 1247510771; FsyncFailure at call 32, FlushData headers.two, seed
    /// 220869934; then power loss).
    /// Fix: make the store directory's entries durable on every open (one SyncDirectory of the
    /// store directory before any header is trusted or journal file released), so a header copy
    /// created by an earlier process whose directory sync failed gets its name durable too.
    /// </summary>
    [Fact]
    public void Reopen_after_a_failed_directory_sync_of_a_new_header_copy_makes_its_name_durable()
    {
        void Tune(StorageEnvironmentOptions o) => o.JournalFileSize = 8 * 1024;
        using var machine = new CrashFileSystem(8, CrashRun.Directory);
        var model = new StoreModel();
        var run = new CrashRun(machine, model, Tune);
        run.Open();
        for (var i = 0; i < 4; i++)
        {
            run.Commit(Change.Put("t", $"k{i}", CrashScenarios.Bytes(i, 900))); // two records per journal file
        }

        machine.Faults = call => call.Kind == IoCallKind.SyncDirectory && call.Path == CrashRun.Directory ? IoFault.IoError : IoFault.None;
        try
        {
            run.Environment.Dispose(); // the final flush creates headers.two; the directory sync after it fails
        }
        catch (EnvironmentFailedException)
        {
            // reporting it is fine
        }

        machine.Faults = null;
        run.Finish(CrashHarness.SettleTimeout);
        var again = new CrashRun(machine, model, Tune); // the same boot: the cache shows headers.two
        again.Open();
        for (var i = 4; i < 8; i++)
        {
            again.Commit(Change.Put("t", $"k{i}", CrashScenarios.Bytes(i, 900)));
        }

        again.Flush(); // a newer revision into headers.two, and journal files released behind it
        again.Finish(CrashHarness.SettleTimeout);

        using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 8));
        CrashVerifier.Verify(crashed, model, Tune, reopen: false);
    }
}
