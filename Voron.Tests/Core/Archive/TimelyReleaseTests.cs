using Voron.Tests.Core.Backup;
using Voron.Tests.Documents.Changes;

namespace Voron.Tests.Core.Archive;

/// <summary>
/// A store that ships its archive leaves and releases its journal file once the file's first
/// record is ArchiveMaxDelay old (TR1..TR5, J14, FL11). The clock is moved by hand and each step is
/// driven by the test: no assertion waits on the wall clock.
/// </summary>
public sealed class TimelyReleaseTests(ITestOutputHelper output)
{
    private static readonly TimeSpan Delay = TimeSpan.FromSeconds(1);

    private static ShippingWorkload Workload(int seed, IArchiveDestination destination, ManualTimeProvider clock, TimeSpan? delay = null) =>
        new(seed, destination, configure: options =>
        {
            options.Clock = clock;
            options.ArchiveMaxDelay = delay ?? Delay;
        });

    [Fact]
    public async Task Files_left_by_age_reach_the_destination_in_order_as_an_unbroken_chain_that_restores_every_commit()
    {
        var seed = TestSeed.Next(output, nameof(Files_left_by_age_reach_the_destination_in_order_as_an_unbroken_chain_that_restores_every_commit));
        var random = new Random(seed);
        using var remote = new TempDirectory();
        var destination = new DirectoryArchiveDestination(remote.Path);
        var clock = new ManualTimeProvider();
        using var store = Workload(seed, destination, clock);
        store.Commit(5);
        var backup = await store.Env.BackupAsync(store.Combine("backup"));
        await ObjectArchive.UploadSnapshotAsync(destination, backup.Directory);

        var releases = 0;
        for (var round = 0; round < 40; round++)
        {
            var committed = random.Next(4) == 0 ? 0 : random.Next(1, 8);
            store.Commit(committed);
            var due = random.Next(3) == 0;
            clock.Advance(due ? Delay + TimeSpan.FromMilliseconds(random.Next(2000)) : TimeSpan.FromMilliseconds(random.Next(0, 900)));
            var left = store.Env.ReleaseAgedJournalFile();
            releases += left ? 1 : 0;
            var status = await store.Env.ShipArchiveAsync();
            await ArchiveShippingTests.AssertShippedPrefix(store, destination, lastAtLeast: 0);
            if (due)
            {
                // Every record in the current file was written before the clock moved past the
                // delay: the step left the file, the flush released it, and the destination now
                // holds every committed transaction.
                Assert.Equal(store.Env.LastCommittedTransactionId, status.LastShippedTransaction);
                Assert.Equal(0, status.PendingFiles);
                Assert.True(left || committed == 0, $"round {round}: {committed} commits, yet the due step left no file");
            }
        }

        Assert.True(releases > 0, "no step was due");
        clock.Advance(Delay);
        store.Env.ReleaseAgedJournalFile();
        var last = await store.Env.ShipArchiveAsync();
        Assert.Equal(store.Env.LastCommittedTransactionId, last.LastShippedTransaction);
        var restored = await ObjectArchive.RestoreAsync(destination, store.LineageText, store.Combine("restored"));
        Assert.Equal(store.Env.LastCommittedTransactionId, restored.TransactionId);
        StoreContents.AssertStore(restored.Directory, store.States[restored.TransactionId], restored.TransactionId);
        output.WriteLine($"{releases} files left by age, {last.LastShippedFile} shipped, seed {seed}");
    }

    [Fact]
    public async Task An_idle_store_releases_its_last_file_once_it_is_due_and_then_makes_no_more()
    {
        var seed = TestSeed.Next(output, nameof(An_idle_store_releases_its_last_file_once_it_is_due_and_then_makes_no_more));
        using var remote = new TempDirectory();
        var destination = new DirectoryArchiveDestination(remote.Path);
        var clock = new ManualTimeProvider();
        using var store = Workload(seed, destination, clock);
        store.Commit(3);

        Assert.False(store.Env.ReleaseAgedJournalFile()); // not due yet
        var before = await store.Env.ShipArchiveAsync();
        Assert.True(before.LastShippedTransaction < store.Env.LastCommittedTransactionId, "the last commit is in the live journal file");

        clock.Advance(Delay);
        Assert.True(store.Env.ReleaseAgedJournalFile()); // no commit comes: the step alone leaves and releases the file (FL11 or the flush)
        var shipped = await store.Env.ShipArchiveAsync();
        Assert.Equal(store.Env.LastCommittedTransactionId, shipped.LastShippedTransaction);
        Assert.Equal(0, shipped.PendingFiles);
        await ArchiveShippingTests.AssertShippedPrefix(store, destination, shipped.LastShippedFile);

        // TR2: the new file holds no record, so an idle store makes no more files and objects.
        var files = store.LocalFiles();
        var journalFiles = Directory.GetFiles(Path.Combine(store.Store, "journal")).Length;
        clock.Advance(TimeSpan.FromMinutes(5));
        Assert.False(store.Env.ReleaseAgedJournalFile());
        Assert.Equal(shipped.LastShippedFile, (await store.Env.ShipArchiveAsync()).LastShippedFile);
        Assert.Equal(files, store.LocalFiles());
        Assert.Equal(journalFiles, Directory.GetFiles(Path.Combine(store.Store, "journal")).Length);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_file_holding_records_when_the_store_opens_is_released_at_once(bool crashed)
    {
        var seed = TestSeed.Next(output, nameof(A_file_holding_records_when_the_store_opens_is_released_at_once));
        using var remote = new TempDirectory();
        var destination = new DirectoryArchiveDestination(remote.Path);
        var clock = new ManualTimeProvider();
        using var store = Workload(seed, destination, clock, delay: TimeSpan.FromHours(1));
        store.Commit(6);
        var committed = store.Env.LastCommittedTransactionId;
        Assert.True((await store.Env.ShipArchiveAsync()).LastShippedTransaction < committed);

        store.Reopen(crash: crashed); // recovery (after a crash) or a clean close; the clock does not move
        Assert.Equal(committed, store.Env.LastCommittedTransactionId);
        Assert.True(store.Env.ReleaseAgedJournalFile()); // TR3: older than the open, so due at once
        var shipped = await store.Env.ShipArchiveAsync();
        Assert.Equal(committed, shipped.LastShippedTransaction);
        await ArchiveShippingTests.AssertShippedPrefix(store, destination, shipped.LastShippedFile);

        store.Reopen(crash: crashed); // the header names the new file's start (J14): it opens and recovers from there
        Assert.Equal(committed, store.Env.LastCommittedTransactionId);
        Assert.False(store.Env.ReleaseAgedJournalFile());
        store.Commit(2);
        clock.Advance(TimeSpan.FromHours(1));
        Assert.True(store.Env.ReleaseAgedJournalFile());
        Assert.Equal(store.Env.LastCommittedTransactionId, (await store.Env.ShipArchiveAsync()).LastShippedTransaction);
        await ArchiveShippingTests.AssertShippedPrefix(store, destination, 0);
    }

    [Fact]
    public async Task The_background_release_ships_a_commit_without_a_flush_a_full_file_or_the_next_poll()
    {
        var seed = TestSeed.Next(output, nameof(The_background_release_ships_a_commit_without_a_flush_a_full_file_or_the_next_poll));
        using var remote = new TempDirectory();
        var destination = new DirectoryArchiveDestination(remote.Path);
        // A poll an hour apart: only the wake of each archived file (SH6) ships in this test's life.
        using var store = new ShippingWorkload(seed, destination, background: true, interval: TimeSpan.FromHours(1),
            configure: options => options.ArchiveMaxDelay = TimeSpan.Zero);
        store.Commit(10);
        var committed = store.Env.LastCommittedTransactionId;

        // Eventually, however slow the machine: the assertion is that it happens, not when.
        var deadline = DateTime.UtcNow.AddMinutes(2);
        while (store.Env.ArchiveShipping!.LastShippedTransaction < committed && DateTime.UtcNow < deadline)
        {
            await Task.Delay(20);
        }

        Assert.Equal(committed, store.Env.ArchiveShipping!.LastShippedTransaction);
        await ArchiveShippingTests.AssertShippedPrefix(store, destination, 1);
    }

    [Fact]
    public void A_negative_delay_is_refused()
    {
        using var temp = new TempDirectory();
        var options = ArchivedHistory.Options(temp.Combine("store"), temp.Combine("archive"));
        options.ArchiveDestination = new DirectoryArchiveDestination(temp.Combine("remote"));
        options.ArchiveMaxDelay = TimeSpan.FromSeconds(-2);
        var refused = Assert.Throws<ArgumentOutOfRangeException>(() => StorageEnvironment.Open(options));
        Assert.Contains("ArchiveMaxDelay", refused.Message);
    }
}
