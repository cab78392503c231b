using Voron.Allocation;
using Voron.Header;
using Voron.Transactions;

namespace Voron.Tests.Core.Transactions;

/// <summary>
/// The transaction registry (Transactions/TransactionRegistry.cs) on its own, without a store: the
/// horizon and the flush pin (FL1, FL8, A5), what pruning keeps and what retired slots wait for
/// (PT6, PT7), and admission across a close (LC1, LC3, LC6). The committed state is a counter the
/// test moves; a seeded model-based test checks every answer against a plain list of live
/// transactions after random begins, ends, commits, flushes and a close.
/// </summary>
public sealed class TransactionRegistryTests(ITestOutputHelper output)
{
    private long _committedTxId;
    private long _clock = 1000;

    private TransactionRegistry NewRegistry() => new(
        () => State(_committedTxId),
        () => new ObjectDisposedException("store", "closed"),
        () => new ObjectDisposedException("store", "closing"),
        () => ++_clock);

    private static CommittedState State(long txId) => new(txId, new EnvironmentState(default, 12, 0), FreeSpaceSummary.Empty, default);

    [Fact]
    public void SnapshotHorizon_is_the_last_commit_when_no_reader_is_live_and_the_oldest_snapshot_otherwise()
    {
        var registry = NewRegistry();
        _committedTxId = 5;
        Assert.Equal(5, registry.SnapshotHorizon());

        var first = registry.EnterReader(out var firstGeneration);
        _committedTxId = 9;
        registry.EnterReader(out var secondGeneration);

        Assert.Equal(5, first.TxId);
        Assert.Equal(5, registry.SnapshotHorizon()); // FL1, A5: the oldest reader holds it back
        registry.ExitReader(5, firstGeneration);
        Assert.Equal(9, registry.SnapshotHorizon());
        registry.ExitReader(9, secondGeneration);
        _committedTxId = 12;
        Assert.Equal(12, registry.SnapshotHorizon());
    }

    [Fact]
    public void OldestReader_reports_when_the_first_live_reader_of_the_oldest_snapshot_began()
    {
        var registry = NewRegistry();
        _committedTxId = 3;

        Assert.Null(registry.OldestReader());
        registry.EnterReader(out var a); // timestamp 1001
        registry.EnterReader(out var b); // 1002: same snapshot, the first one's time stays
        Assert.Equal((3L, 1001L), registry.OldestReader());

        registry.ExitReader(3, a);
        Assert.Equal((3L, 1001L), registry.OldestReader()); // one reader of snapshot 3 is still live
        registry.ExitReader(3, b);
        Assert.Null(registry.OldestReader());
    }

    [Fact]
    public void PinFlushHorizon_keeps_the_horizon_in_the_retention_after_the_reader_that_set_it_ended()
    {
        var registry = NewRegistry();
        _committedTxId = 4;
        registry.EnterReader(out var generation);
        _committedTxId = 8;

        Assert.Equal(4, registry.PinFlushHorizon());
        registry.ExitReader(4, generation);

        // FL8: pruning keeps the newest version <= 4 as if 4 were a reader, until the flush ends.
        Assert.Equal(new long[] { 4 }, registry.CaptureRetention().Snapshots);
        registry.UnpinFlushHorizon();
        Assert.Empty(registry.CaptureRetention().Snapshots);
        Assert.Equal(8, registry.CaptureRetention().Committed);
    }

    [Fact]
    public void RetireGeneration_keeps_the_retired_generation_oldest_until_its_last_transaction_ends()
    {
        var registry = NewRegistry();
        registry.EnterReader(out var reader);
        var batch = registry.EnterGeneration();

        var retired = registry.RetireGeneration();

        // PT7: slots retired with generation 0 wait for the reader and the batch that began in it.
        Assert.Equal(0, retired);
        Assert.Equal(0, registry.CaptureRetention().OldestGeneration);
        Assert.Equal(1, registry.CaptureRetention().CurrentGeneration);
        registry.ExitGeneration(batch);
        Assert.Equal(0, registry.CaptureRetention().OldestGeneration);
        registry.ExitReader(0, reader);
        Assert.Equal(long.MaxValue, registry.CaptureRetention().OldestGeneration);
    }

    [Fact]
    public void EnterWriter_and_EnterCommit_are_refused_once_the_close_was_requested_while_readers_still_begin()
    {
        var registry = NewRegistry();

        registry.RequestClose();

        // LC1, LC3: Dispose has begun; a reader may still begin until the registry is closed.
        Assert.StartsWith("closing", Assert.Throws<ObjectDisposedException>(() => registry.EnterWriter(out _)).Message);
        Assert.StartsWith("closing", Assert.Throws<ObjectDisposedException>(registry.EnterCommit).Message);
        registry.EnterReader(out _);
        Assert.False(registry.IsClosed);
    }

    [Fact]
    public void TryClose_refuses_every_transaction_after_it_and_only_the_first_call_closes()
    {
        var registry = NewRegistry();
        var calls = 0;

        Assert.True(registry.TryClose(() => calls++, out var release));
        Assert.True(release); // LC6: nothing is live, the resources go now
        Assert.False(registry.TryClose(() => calls++, out release));
        Assert.False(release);
        Assert.Equal(1, calls);
        Assert.True(registry.IsClosed);
        Assert.StartsWith("closed", Assert.Throws<ObjectDisposedException>(() => registry.EnterReader(out _)).Message);
    }

    [Fact]
    public void The_last_transaction_to_end_after_the_close_releases_the_resources_once()
    {
        var registry = NewRegistry();
        registry.EnterReader(out var reader);
        registry.EnterWriter(out var writer);
        registry.RequestClose();

        Assert.True(registry.TryClose(() => { }, out var release));

        // LC6: readers live at Dispose keep the mapping until the last of them ends.
        Assert.False(release);
        Assert.False(registry.ExitWriter(writer));
        Assert.True(registry.ExitReader(0, reader));
    }

    [Fact]
    public async Task TryClose_runs_its_callback_before_it_waits_for_the_explicit_commit_under_way()
    {
        var registry = NewRegistry();
        registry.EnterCommit();
        using var callbackRan = new ManualResetEventSlim();

        var close = Task.Run(() => registry.TryClose(callbackRan.Set, out _));

        // LC3: the close waits for the commit; CW1: commit waits ended before that wait.
        Assert.True(callbackRan.Wait(TimeSpan.FromMinutes(2)), "the close never ran its callback (hang guard)");
        Assert.True(registry.IsClosed);
        registry.ExitCommit();
        Assert.True(await close.WaitAsync(TimeSpan.FromMinutes(2)), "the close returned false: it was closed already");
    }

    /// <summary>
    /// Random begins and ends of readers, explicit writers and merged batches, commits, flushes
    /// (pin, retire, unpin) and, near the end, a close, against a plain list of live
    /// transactions: after every step the horizon, the oldest reader, the retention and the
    /// admission answers are what the list says.
    /// </summary>
    [Fact]
    public void Random_begins_ends_commits_and_flushes_match_a_list_of_live_transactions()
    {
        var seed = TestSeed.Next(output, nameof(Random_begins_ends_commits_and_flushes_match_a_list_of_live_transactions));
        var random = new Random(seed);
        for (var round = 0; round < 50; round++)
        {
            RunModel(random, seed, round);
        }
    }

    private enum Kind { Reader, Writer, Batch }

    private sealed record Live(Kind Kind, long Snapshot, long Generation);

    private void RunModel(Random random, int seed, int round)
    {
        _committedTxId = random.Next(0, 3);
        var registry = NewRegistry();
        var live = new List<Live>();
        long generation = 0;
        long? pin = null;
        var commits = 0;
        var closeRequested = false;
        var closed = false;
        var releases = 0;
        var since = new Dictionary<long, long>(); // snapshot -> the clock when its first live reader began
        var steps = random.Next(50, 400);
        for (var step = 0; step < steps; step++)
        {
            var where = $"seed {seed}, round {round}, step {step}";
            switch (random.Next(11))
            {
                case 0 or 1 or 2:
                    if (closed)
                    {
                        Assert.Throws<ObjectDisposedException>(() => registry.EnterReader(out _));
                        break;
                    }

                    var readAt = registry.EnterReader(out var readerGeneration);
                    Assert.True(readAt.TxId == _committedTxId, $"{where}: a reader began at {readAt.TxId}, committed is {_committedTxId}");
                    Assert.True(readerGeneration == generation, where);
                    if (!live.Any(t => t.Kind == Kind.Reader && t.Snapshot == readAt.TxId))
                    {
                        since[readAt.TxId] = _clock; // the registry read the clock for the snapshot's first live reader
                    }

                    live.Add(new Live(Kind.Reader, readAt.TxId, readerGeneration));
                    break;
                case 3:
                    if (closeRequested || live.Any(t => t.Kind == Kind.Writer))
                    {
                        if (closeRequested)
                        {
                            Assert.Throws<ObjectDisposedException>(() => registry.EnterWriter(out _)); // LC1
                        }

                        break;
                    }

                    var writeAt = registry.EnterWriter(out var writerGeneration);
                    Assert.True(writeAt.TxId == _committedTxId && writerGeneration == generation, where);
                    live.Add(new Live(Kind.Writer, writeAt.TxId, writerGeneration));
                    break;
                case 4:
                    live.Add(new Live(Kind.Batch, 0, registry.EnterGeneration()));
                    break;
                case 5 or 6 or 7:
                    if (live.Count == 0)
                    {
                        break;
                    }

                    var ending = live[random.Next(live.Count)];
                    live.Remove(ending);
                    var released = ending.Kind switch
                    {
                        Kind.Reader => registry.ExitReader(ending.Snapshot, ending.Generation),
                        Kind.Writer => registry.ExitWriter(ending.Generation),
                        _ => Exit(registry, ending.Generation),
                    };
                    var expectRelease = closed && ending.Kind != Kind.Batch && !live.Any(t => t.Kind != Kind.Batch);
                    Assert.True(released == expectRelease, $"{where}: ending a {ending.Kind} released the resources: {released}, expected {expectRelease}");
                    releases += released ? 1 : 0;
                    break;
                case 8:
                    _committedTxId++;
                    commits++;
                    break;
                case 9:
                    if (pin == null)
                    {
                        var horizon = registry.PinFlushHorizon();
                        Assert.True(horizon == ModelHorizon(live), $"{where}: the flush pinned {horizon}, the model's horizon is {ModelHorizon(live)}");
                        pin = horizon;
                    }
                    else
                    {
                        if (random.Next(2) == 0)
                        {
                            Assert.True(registry.RetireGeneration() == generation, where);
                            generation++;
                        }

                        registry.UnpinFlushHorizon();
                        pin = null;
                    }

                    break;
                case 10:
                    if (step < steps / 2 || closed)
                    {
                        break;
                    }

                    if (!closeRequested)
                    {
                        registry.RequestClose();
                        closeRequested = true;
                        Assert.Throws<ObjectDisposedException>(registry.EnterCommit); // LC3
                        break;
                    }

                    Assert.True(registry.TryClose(() => { }, out var releaseNow), where);
                    closed = true;
                    var nothingLive = !live.Any(t => t.Kind != Kind.Batch);
                    Assert.True(releaseNow == nothingLive, $"{where}: the close released the resources: {releaseNow}, expected {nothingLive}");
                    releases += releaseNow ? 1 : 0;
                    break;
            }

            Check(registry, live, since, pin, generation, closed, where);
        }

        Assert.True(releases <= 1, $"seed {seed}, round {round}: the resources were released {releases} times");
        output.WriteLine($"round {round}: {steps} steps, {commits} commits, {live.Count} live at the end, closed: {closed}");
    }

    private static bool Exit(TransactionRegistry registry, long generation)
    {
        registry.ExitGeneration(generation);
        return false;
    }

    private long ModelHorizon(List<Live> live)
    {
        var readers = live.Where(t => t.Kind == Kind.Reader).ToList();
        return readers.Count == 0 ? _committedTxId : readers.Min(t => t.Snapshot);
    }

    private void Check(TransactionRegistry registry, List<Live> live, Dictionary<long, long> since, long? pin, long generation, bool closed, string where)
    {
        var readers = live.Where(t => t.Kind == Kind.Reader).ToList();
        Assert.True(registry.SnapshotHorizon() == ModelHorizon(live), $"{where}: horizon {registry.SnapshotHorizon()}, model {ModelHorizon(live)}");

        var oldest = registry.OldestReader();
        if (readers.Count == 0)
        {
            Assert.True(oldest == null, $"{where}: no reader is live, the registry names {oldest}");
        }
        else
        {
            // Since: when the snapshot's first reader began, counted from the last time none was live.
            var snapshot = readers.Min(t => t.Snapshot);
            Assert.True(oldest == (snapshot, since[snapshot]), $"{where}: oldest reader {oldest}, model ({snapshot}, {since[snapshot]})");
        }

        var retention = registry.CaptureRetention();
        var snapshots = readers.Select(t => t.Snapshot).Concat(pin is { } p ? new[] { p } : Array.Empty<long>()).Distinct().Order().ToArray();
        Assert.True(retention.Snapshots.SequenceEqual(snapshots),
            $"{where}: retention keeps [{string.Join(", ", retention.Snapshots)}], model [{string.Join(", ", snapshots)}]");
        Assert.True(retention.Committed == _committedTxId, where);
        var oldestGeneration = live.Count == 0 ? long.MaxValue : live.Min(t => t.Generation);
        Assert.True(retention.OldestGeneration == oldestGeneration, $"{where}: oldest generation {retention.OldestGeneration}, model {oldestGeneration}");
        Assert.True(retention.CurrentGeneration == generation, $"{where}: current generation {retention.CurrentGeneration}, model {generation}");
        Assert.True(registry.IsClosed == closed, where);
    }
}
