namespace Voron.Tests.Documents;

/// <summary>Any failure of an index build leaves the catalog consistent: the index is dropped and the error thrown.</summary>
public sealed class IndexBuildFailureTests
{
    // The class of the lone-surrogate regression (UnicodeBoundaryTests): EnsureIndexAsync dropped
    // the index only for a unique violation or an ArgumentException; any other failure of a build
    // step (there: InvalidOperationException from a lone surrogate) left it defined, "building",
    // never ready.
    // Fixed: every failure but cancellation drops it (Indexing/IndexBuilder.cs).
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(4)]
    public async Task EnsureIndexAsync_drops_the_index_when_a_build_step_fails_and_a_later_call_builds_it(int failingStep)
    {
        await using var store = DocumentTestStore.InMemory(o => o.IndexBuildBatchSize = 3);
        await using (var session = store.OpenSession())
        {
            for (var i = 0; i < 10; i++)
            {
                session.StoreRaw("c", $"c/{i}", System.Text.Encoding.UTF8.GetBytes($"{{\"a\":{i}}}"));
            }

            await session.SaveChangesAsync();
        }

        var definition = new IndexDefinition("c", "c_by_a", "a");
        var steps = 0;
        store.IndexBuilder.BuildChunkTestHook = _ =>
        {
            if (++steps == failingStep)
            {
                throw new InvalidOperationException("injected build failure");
            }
        };
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => store.EnsureIndexAsync(definition));
        Assert.Equal("injected build failure", error.Message);
        Assert.Empty(store.GetIndexes("c"));
        Assert.Equal(0, store.CheckIntegrity().Indexes);
        await using (var session = store.OpenSession())
        {
            await Assert.ThrowsAsync<NotSupportedException>(() => session.QueryRaw("c").Where("a", QueryOperator.GreaterThan, 4L).CountAsync());
        }

        store.IndexBuilder.BuildChunkTestHook = null;
        Assert.True(await store.EnsureIndexAsync(definition));
        Assert.True(store.GetIndexes("c").Single().IsReady);
        await using (var session = store.OpenSession())
        {
            Assert.Equal(5, await session.QueryRaw("c").Where("a", QueryOperator.GreaterThan, 4L).CountAsync());
        }

        Assert.Equal(10, store.CheckIntegrity().IndexEntries);
    }

    [Fact]
    public async Task A_canceled_build_stays_defined_and_the_next_call_resumes_it()
    {
        await using var store = DocumentTestStore.InMemory(o => o.IndexBuildBatchSize = 2);
        await using (var session = store.OpenSession())
        {
            for (var i = 0; i < 6; i++)
            {
                session.StoreRaw("c", $"c/{i}", System.Text.Encoding.UTF8.GetBytes($"{{\"a\":{i}}}"));
            }

            await session.SaveChangesAsync();
        }

        var definition = new IndexDefinition("c", "c_by_a", "a");
        using var cancel = new CancellationTokenSource();
        store.IndexBuilder.BuildChunkTestHook = _ => cancel.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => store.EnsureIndexAsync(definition, cancellationToken: cancel.Token));
        Assert.False(store.GetIndexes("c").Single().IsReady);
        store.IndexBuilder.BuildChunkTestHook = null;
        Assert.True(await store.EnsureIndexAsync(definition));
        Assert.Equal(6, store.CheckIntegrity().IndexEntries);
    }
}
