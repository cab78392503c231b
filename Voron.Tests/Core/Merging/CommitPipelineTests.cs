using Voron.Allocation;
using Voron.Header;
using Voron.Transactions;

namespace Voron.Tests.Core.Merging;

/// <summary>
/// The commit pipeline's ordering rules (Transactions/CommitPipeline.cs: steps 1–5, C3, C5; PT2;
/// FL9) against its seam, without a store: every function it is given is a fake that records
/// the call, so each test reads the order of the steps, and what a failure at one of them left
/// undone. The whole-store tests (CommitFailureTests, Faults/CommitPipelineFaultTests) check the
/// same rules through the real journal, page table and flusher.
/// </summary>
public sealed class CommitPipelineTests
{
    private static readonly JournalPosition RecordEnd = new(3, 8192);

    [Fact]
    public void WriteAndPublish_runs_the_steps_in_order_journal_publish_queue_visible()
    {
        var fake = new FakeStore();

        fake.Pipeline.WriteAndPublish(Prepared(txId: 7));

        Assert.Equal(new[]
        {
            "usable?", "hook JournalWrite", "reserve 12", "journal 7", "hook Journaled",
            "publish 7", "hook Published", "queue 7", "hook Enqueued", "visible 7", "hook Visible",
        }, fake.Calls);
    }

    [Fact]
    public void WriteAndPublish_publishes_only_after_the_journal_write_returned()
    {
        var fake = new FakeStore();

        fake.Pipeline.WriteAndPublish(Prepared(txId: 7));

        // PT2, C3: nothing of the transaction is published before its record is durable.
        Assert.True(fake.Calls.IndexOf("journal 7") < fake.Calls.IndexOf("publish 7"));
        Assert.True(fake.Calls.IndexOf("journal 7") < fake.Calls.IndexOf("visible 7"));
    }

    [Fact]
    public void WriteAndPublish_queues_the_commit_for_the_flusher_before_it_is_visible()
    {
        var fake = new FakeStore();

        fake.Pipeline.WriteAndPublish(Prepared(txId: 7));

        // FL9: a flush that pins the committed id finds every transaction up to it queued.
        Assert.True(fake.Calls.IndexOf("queue 7") < fake.Calls.IndexOf("visible 7"));
    }

    [Fact]
    public void WriteAndPublish_hands_the_record_end_to_the_flusher_and_the_committed_state()
    {
        var fake = new FakeStore();

        fake.Pipeline.WriteAndPublish(Prepared(txId: 7, pages: [5, 6], freed: [9]));

        var queued = Assert.Single(fake.Queued);
        Assert.Equal(7, queued.TxId);
        Assert.Equal(new[] { 5L, 6L, 9L }, queued.Pages); // the tombstones are flushed too (PT5)
        Assert.Equal(RecordEnd, queued.JournalEnd); // FL3: journal files before it may go once flushed
        Assert.Equal(7, fake.Visible!.TxId);
        Assert.Equal(RecordEnd, fake.Visible.JournalEnd);
        Assert.Equal(1, fake.Pipeline.JournalWrites);
    }

    [Fact]
    public void WriteAndPublish_fails_the_store_and_publishes_nothing_when_the_journal_write_fails()
    {
        var fake = new FakeStore
        {
            // The journal made its first write and failed (J7), then threw.
            Append = () => throw new IOException("injected: fdatasync failed"),
            JournalFailed = true,
        };

        var thrown = Assert.Throws<EnvironmentFailedException>(() => fake.Pipeline.WriteAndPublish(Prepared(txId: 7)));

        Assert.IsType<IOException>(thrown.InnerException);
        Assert.Contains("fail IOException", fake.Calls);
        Assert.DoesNotContain(fake.Calls, c => c.StartsWith("publish", StringComparison.Ordinal) || c.StartsWith("queue", StringComparison.Ordinal) || c.StartsWith("visible", StringComparison.Ordinal));
        Assert.Equal(0, fake.Pipeline.JournalWrites);
    }

    [Fact]
    public void WriteAndPublish_is_clean_when_the_journal_fails_before_its_first_write()
    {
        var fake = new FakeStore
        {
            // A record over the size limit: the journal refuses it before writing (not failed).
            Append = () => throw new InvalidOperationException("injected: record too large"),
            JournalFailed = false,
        };

        // C5: the committer gets the exception itself; the store is not failed and nothing shows.
        var thrown = Assert.Throws<InvalidOperationException>(() => fake.Pipeline.WriteAndPublish(Prepared(txId: 7)));

        Assert.Equal("injected: record too large", thrown.Message);
        Assert.DoesNotContain(fake.Calls, c => c.StartsWith("fail", StringComparison.Ordinal));
        Assert.DoesNotContain(fake.Calls, c => c.StartsWith("publish", StringComparison.Ordinal) || c.StartsWith("queue", StringComparison.Ordinal) || c.StartsWith("visible", StringComparison.Ordinal));
    }

    [Fact]
    public void WriteAndPublish_fails_the_store_when_growing_the_data_file_fails_and_writes_no_record()
    {
        var fake = new FakeStore { Reserve = () => throw new IOException("injected: disk full") };

        Assert.Throws<EnvironmentFailedException>(() => fake.Pipeline.WriteAndPublish(Prepared(txId: 7)));

        // PG5: recovery never has to grow the data file, so no record goes out without the room.
        Assert.Contains("fail IOException", fake.Calls);
        Assert.DoesNotContain(fake.Calls, c => c.StartsWith("journal ", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("publish")]
    [InlineData("queue")]
    [InlineData("visible")]
    public void WriteAndPublish_fails_the_store_when_a_step_after_the_journal_write_throws(string failingStep)
    {
        var fake = new FakeStore { FailAt = failingStep };

        // C5: the record is in the journal; memory may not match it, so only recovery can tell.
        var thrown = Assert.Throws<EnvironmentFailedException>(() => fake.Pipeline.WriteAndPublish(Prepared(txId: 7)));

        Assert.IsType<InvalidOperationException>(thrown.InnerException);
        Assert.Equal("fail InvalidOperationException", fake.Calls[^1]);
        Assert.Equal(0, fake.Pipeline.JournalWrites);
        Assert.Null(fake.Visible); // C3: nobody sees a commit whose publication failed
    }

    [Fact]
    public void WriteAndPublish_refuses_an_unusable_store_before_touching_anything()
    {
        var fake = new FakeStore { Unusable = true };

        Assert.Throws<ObjectDisposedException>(() => fake.Pipeline.WriteAndPublish(Prepared(txId: 7)));

        Assert.Equal(new[] { "usable?" }, fake.Calls);
    }

    [Fact]
    public void Commit_prepares_then_writes_and_publishes()
    {
        var fake = new FakeStore { ToPrepare = Prepared(txId: 4) };

        fake.Pipeline.Commit(NoTransaction);

        Assert.Equal(new[] { "hook Prepare", "prepare", "hook Prepared", "usable?", "hook JournalWrite" }, fake.Calls.Take(5));
        Assert.Equal("hook Visible", fake.Calls[^1]);
    }

    [Fact]
    public void Commit_of_a_transaction_that_changed_nothing_writes_nothing()
    {
        var fake = new FakeStore { ToPrepare = null };

        fake.Pipeline.Commit(NoTransaction);

        Assert.Equal(new[] { "hook Prepare", "prepare", "hook Prepared" }, fake.Calls);
    }

    [Fact]
    public void Commit_failing_in_prepare_is_clean()
    {
        var fake = new FakeStore { PrepareFails = true };

        Assert.Throws<InvalidOperationException>(() => fake.Pipeline.Commit(NoTransaction));

        // C5: a failure in step 1 is the committer's; the store is not failed.
        Assert.Equal(new[] { "hook Prepare", "prepare" }, fake.Calls);
    }

    /// <summary>The fake seams never look at the transaction: the prepared commit is the fake's.</summary>
    private static LowLevelTransaction NoTransaction => null!;

    private static PreparedCommit Prepared(long txId, long[]? pages = null, long[]? freed = null)
    {
        var images = (pages ?? [5]).Select(p => new KeyValuePair<long, byte[]>(p, new byte[Constants.PageSize])).ToList();
        return new PreparedCommit(txId, new EnvironmentState(default, 12, 0), FreeSpaceSummary.Empty, images,
            images.ToDictionary(p => p.Key, p => p.Value), [.. images.Select(p => new JournalPage(p.Key, p.Value))], freed ?? []);
    }

    /// <summary>The store as the pipeline sees it: each seam records its call, and may throw.</summary>
    private sealed class FakeStore
    {
        public FakeStore()
        {
            Pipeline = new CommitPipeline(new CommitSeams
            {
                ThrowIfUnusable = () =>
                {
                    Calls.Add("usable?");
                    ObjectDisposedException.ThrowIf(Unusable, this);
                },
                Fail = e =>
                {
                    Calls.Add("fail " + e.GetType().Name);
                    return new EnvironmentFailedException("fake", e);
                },
                PrepareTransaction = _ =>
                {
                    Calls.Add("prepare");
                    return PrepareFails ? throw new InvalidOperationException("injected: prepare") : ToPrepare;
                },
                ReserveDataFile = next =>
                {
                    Calls.Add($"reserve {next}");
                    Reserve?.Invoke();
                },
                AppendToJournal = (txId, _, _) =>
                {
                    Calls.Add($"journal {txId}");
                    Append?.Invoke();
                    return new JournalRecordLocation(new JournalPosition(3, 0), RecordEnd);
                },
                JournalFailed = () => JournalFailed,
                Publish = prepared => Step("publish", prepared.TxId),
                QueueForFlush = transaction =>
                {
                    Step("queue", transaction.TxId);
                    Queued.Add(transaction);
                },
                MakeVisible = committed =>
                {
                    Step("visible", committed.TxId);
                    Visible = committed;
                },
                Hook = step => Calls.Add($"hook {step}"),
                Path = "fake",
            });
        }

        public CommitPipeline Pipeline { get; }

        public List<string> Calls { get; } = [];

        public List<UnflushedTransaction> Queued { get; } = [];

        public CommittedState? Visible { get; private set; }

        public bool Unusable { get; init; }

        public bool PrepareFails { get; init; }

        public PreparedCommit? ToPrepare { get; init; }

        public Action? Reserve { get; init; }

        public Action? Append { get; init; }

        public bool JournalFailed { get; init; }

        /// <summary>The step after the journal write that throws: publish, queue or visible.</summary>
        public string? FailAt { get; init; }

        private void Step(string name, long txId)
        {
            Calls.Add($"{name} {txId}");
            if (name == FailAt)
            {
                throw new InvalidOperationException($"injected: {name}");
            }
        }
    }
}
