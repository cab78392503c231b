namespace Voron.Tests.Documents.Sessions;

/// <summary>
/// A lone save on an idle store takes the merger's caller-run path (TransactionMerger MG1–MG4 in
/// Voron.Core): the session's write runs, is journaled and acknowledged on the saving thread, as
/// a lone SQL commit is. xunit runs test code under a synchronization context, on which the
/// merger always queues (MG2), so the saves here run on the thread pool (Task.Run).
/// </summary>
public sealed class LoneSaveTests
{
    private static readonly TestJson Json = TestJson.Default;

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_lone_save_on_an_idle_store_is_written_on_the_saving_thread_and_done_when_SaveChanges_returns(bool inMemory)
    {
        using var directory = new TempDirectory();
        await using var store = inMemory ? DocumentTestStore.InMemory() : DocumentTestStore.InDirectory(directory.Path);
        for (var i = 0; i < 20; i++)
        {
            var n = i;
            var (completedOnReturn, callerRuns, journaled) = await Task.Run(async () =>
            {
                await using var session = store.OpenSession();
                session.Store(DocumentTestStore.NewUser($"user {n}", n), Json.User);
                var callerRunsBefore = store.Environment.CallerRunBatches;
                var journalBefore = store.Environment.JournalWrites;
                var save = session.SaveChangesAsync();
                var result = (save.IsCompletedSuccessfully, store.Environment.CallerRunBatches - callerRunsBefore, store.Environment.JournalWrites - journalBefore);
                await save;
                return result;
            });

            Assert.True(completedOnReturn, $"save {n}: an idle store's lone save is durable when SaveChangesAsync returns");
            Assert.Equal(1, callerRuns);
            Assert.Equal(1, journaled);
        }

        await using var read = store.OpenSession();
        Assert.Equal(20, await read.Query(Json.User).CountAsync());
    }

    /// <summary>
    /// The control of the test above: with caller-run batches off (the AppContext switch
    /// Voron.Merger.CallerRuns) the same saves are written by the merger's writer, and the
    /// counter the test above reads stays at zero, so it tells the two paths apart.
    /// </summary>
    [Fact]
    public async Task With_caller_run_batches_off_a_lone_save_is_written_by_the_merger_and_counts_no_caller_run()
    {
        var options = StorageEnvironmentOptions.CreateInMemory();
        options.CallerRuns = false;
        using var environment = StorageEnvironment.Open(options);
        await using var store = DocumentStore.Open(environment);
        for (var i = 0; i < 5; i++)
        {
            var n = i;
            await Task.Run(async () =>
            {
                await using var session = store.OpenSession();
                session.Store(DocumentTestStore.NewUser($"user {n}", n), Json.User);
                await session.SaveChangesAsync();
            });
        }

        Assert.Equal(0, store.Environment.CallerRunBatches);
        await using var read = store.OpenSession();
        Assert.Equal(5, await read.Query(Json.User).CountAsync());
    }
}
