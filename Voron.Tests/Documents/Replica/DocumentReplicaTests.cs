namespace Voron.Tests.Documents.Replica;

/// <summary>
/// A document store over a read replica (I8–I10): it reads what the primary wrote — documents,
/// queries, the indexes the primary built, statistics, export, the change feed — and refuses every
/// write before it does anything.
/// </summary>
public sealed class DocumentReplicaTests(ITestOutputHelper output)
{
    private static readonly TestJson Json = TestJson.Default;

    private static readonly IndexDefinition ByAge = IndexDefinition.For(Json.User, "users_by_age", u => u.Age);

    private static readonly IndexDefinition ByCity = IndexDefinition.For(Json.User, "users_by_city", u => u.Address!.City);

    /// <summary>Seeded saves, updates and deletes of users on the primary, in a few sessions.</summary>
    private static async Task WriteUsersAsync(DocumentStore store, Random random, int sessions)
    {
        for (var s = 0; s < sessions; s++)
        {
            await using var session = store.OpenSession();
            var touched = new HashSet<string>();
            for (var n = random.Next(1, 30); n > 0; n--)
            {
                var id = $"users/{random.Next(120):D3}";
                if (!touched.Add(id))
                {
                    continue; // one change per document and session
                }

                if (random.Next(5) == 0)
                {
                    session.Delete(id);
                    continue;
                }

                var user = DocumentTestStore.NewUser($"name{random.Next(1000)}", random.Next(18, 80), null, $"t{random.Next(4)}");
                user.Address = new Address { City = random.Next(2) == 0 ? "Oslo" : "Lima" };
                session.Store(user, Json.User, id);
            }

            await session.SaveChangesAsync();
        }
    }

    [Fact]
    public async Task Replica_documents_queries_indexes_statistics_and_export_equal_the_primary_at_the_waited_transaction()
    {
        var seed = TestSeed.Next(output, nameof(Replica_documents_queries_indexes_statistics_and_export_equal_the_primary_at_the_waited_transaction));
        var random = new Random(seed);
        using var primary = new ReplicatedDocuments();
        await primary.Primary.EnsureIndexAsync(ByAge);
        await WriteUsersAsync(primary.Primary, random, 5);
        await primary.UploadSnapshotAsync();
        await using var replica = primary.OpenReplica();

        for (var round = 0; round < 3; round++)
        {
            await WriteUsersAsync(primary.Primary, random, random.Next(1, 6));
            if (round == 1)
            {
                await primary.Primary.EnsureIndexAsync(ByCity); // built after the snapshot: its tree arrives in the shipped journal
            }

            var shipped = await primary.ShipAsync();
            await ReplicatedDocuments.WaitAsync(replica, shipped);

            var expected = await ReplicatedDocuments.ExportAsync(primary.Primary);
            var actual = await ReplicatedDocuments.ExportAsync(replica);
            Assert.Equal(shipped, expected.TransactionId);
            Assert.Equal(expected, actual);

            Assert.Equal(primary.Primary.GetIndexes(), replica.GetIndexes());
            var primaryStatistics = primary.Primary.GetStatistics();
            var replicaStatistics = replica.GetStatistics();
            Assert.Equal(primaryStatistics.TransactionId, replicaStatistics.TransactionId);
            Assert.Equal(primaryStatistics.Collections, replicaStatistics.Collections);
            Assert.Equal(primaryStatistics.Indexes, replicaStatistics.Indexes);

            var age = random.Next(18, 80);
            Assert.Equal(await AgesFromAsync(primary.Primary, age), await AgesFromAsync(replica, age));
            Assert.Equal(await IdsOfRawAsync(primary.Primary), await IdsOfRawAsync(replica));
            Assert.Equal(primary.Primary.CheckIntegrity(), replica.CheckIntegrity());
        }

        await using var session = replica.OpenSession();
        Assert.Contains("users_by_city", session.Query(Json.User).Where(u => u.Address!.City == "Oslo").Explain(), StringComparison.Ordinal);
    }

    private static async Task<List<string>> AgesFromAsync(DocumentStore store, int age)
    {
        await using var session = store.OpenSession();
        var found = await session.Query(Json.User).Where(u => u.Age >= age).OrderBy(u => u.Age).ToListAsync();
        return [.. found.Select(u => $"{u.Id}:{u.Age}:{u.Name}")];
    }

    private static async Task<List<string>> IdsOfRawAsync(DocumentStore store)
    {
        await using var session = store.OpenSession();
        var found = await session.QueryRaw("User").Where("address.city", QueryOperator.Equal, "Lima").AllowScan().ToListAsync();
        var ids = found.Select(d => d.Id + ":" + d.Metadata.Version).ToList();
        found.ForEach(d => d.Dispose());
        return ids;
    }

    [Fact]
    public async Task Every_write_path_on_a_replica_refuses_up_front_saying_to_write_to_the_primary_and_changes_nothing()
    {
        var seed = TestSeed.Next(output, nameof(Every_write_path_on_a_replica_refuses_up_front_saying_to_write_to_the_primary_and_changes_nothing));
        using var primary = new ReplicatedDocuments();
        await primary.Primary.EnsureIndexAsync(ByAge);
        await WriteUsersAsync(primary.Primary, new Random(seed), 3);
        await primary.Primary.Subscriptions.CreateAsync("audit");
        await primary.UploadSnapshotAsync();
        await using var replica = primary.OpenReplica();
        await ReplicatedDocuments.WaitAsync(replica, await primary.ShipAsync());
        var before = await ReplicatedDocuments.ExportAsync(replica);
        var transaction = replica.Environment.LastCommittedTransactionId;

        await using (var session = replica.OpenSession())
        {
            var loaded = (await session.Query(Json.User).AllowScan().Take(1).ToListAsync()).Single();
            Refused(() => session.Store(DocumentTestStore.NewUser("new", 30), Json.User));
            Refused(() => session.Store(DocumentTestStore.NewUser("new", 30), Json.User, "users/new"));
            Refused(() => session.StoreRaw("User", "users/raw", """{"name":"raw"}"""u8));
            Refused(() => session.StoreRaw("User", "users/raw", """{"name":"raw"}"""u8, null, DateTimeOffset.UtcNow.AddDays(1)));
            Refused(() => session.Delete(loaded.Id!));
            Refused(() => session.Delete(loaded.Id!, 1));
            Refused(() => session.Delete(loaded));
            Refused(() => session.SetExpiration(loaded, DateTimeOffset.UtcNow.AddDays(1)));

            await session.SaveChangesAsync(); // a session that only read writes nothing (S1), here too
            Assert.Equal(0, session.LastTransactionId);
            loaded.Age++;
            await RefusedAsync(() => session.SaveChangesAsync());
        }

        var users = new[] { DocumentTestStore.NewUser("bulk", 40) };
        await RefusedAsync(() => replica.BulkInsertAsync(users, Json.User));
        await RefusedAsync(() => replica.ImportAsync(new MemoryStream(Encoding.UTF8.GetBytes(before.Lines))));
        await RefusedAsync(() => replica.SweepExpiredAsync());
        await RefusedAsync(() => replica.EnsureIndexAsync(ByCity));
        await RefusedAsync(() => replica.EnsureIndexAsync(ByAge.AsUnique()));
        Assert.False(await replica.EnsureIndexAsync(ByAge)); // in place as defined: nothing to write, as on the primary
        await RefusedAsync(() => replica.DropIndexAsync("User", "users_by_age"));
        await RefusedAsync(() => replica.Subscriptions.CreateAsync("other"));
        await RefusedAsync(() => replica.Subscriptions.DeleteAsync("audit"));
        await RefusedAsync(() => replica.Subscriptions.OpenAsync("audit"));
        Assert.NotNull(await replica.Subscriptions.GetAsync("audit"));

        Assert.Equal(transaction, replica.Environment.LastCommittedTransactionId);
        Assert.Equal(before, await ReplicatedDocuments.ExportAsync(replica));
        Assert.Equal(ReplicaState.Following, replica.Environment.Replica!.State);
    }

    private static void Refused(Action write) => AssertRefusal(Assert.Throws<InvalidOperationException>(write));

    private static async Task RefusedAsync(Func<Task> write) => AssertRefusal(await Assert.ThrowsAsync<InvalidOperationException>(write));

    private static void AssertRefusal(InvalidOperationException refused)
    {
        Assert.Contains("read replica", refused.Message, StringComparison.Ordinal);
        Assert.Contains("Write to the primary", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Save_on_the_primary_is_read_on_the_replica_once_it_waited_for_the_saves_transaction_id()
    {
        var seed = TestSeed.Next(output, nameof(Save_on_the_primary_is_read_on_the_replica_once_it_waited_for_the_saves_transaction_id));
        var random = new Random(seed);
        using var primary = new ReplicatedDocuments();
        await primary.UploadSnapshotAsync();
        await using var replica = primary.OpenReplica();
        for (var round = 0; round < 5; round++)
        {
            var id = $"users/{round}";
            var age = random.Next(18, 80);
            long saved;
            await using (var session = primary.Primary.OpenSession())
            {
                Assert.Equal(0, session.LastTransactionId);
                session.Store(DocumentTestStore.NewUser($"round{round}", age), Json.User, id);
                await session.SaveChangesAsync();
                saved = session.LastTransactionId;
                Assert.Equal(primary.Environment.LastCommittedTransactionId, saved);
                await session.SaveChangesAsync(); // nothing to write: the id stays the last save's
                Assert.Equal(saved, session.LastTransactionId);
            }

            await primary.ShipAsync();
            await ReplicatedDocuments.WaitAsync(replica, saved);
            await using var read = replica.OpenSession();
            var loaded = await read.LoadAsync(id, Json.User);
            Assert.NotNull(loaded);
            Assert.Equal(age, loaded.Age);
        }
    }

    [Fact]
    public async Task Change_feed_on_a_replica_yields_the_primarys_changes_as_the_replica_applies_them()
    {
        using var primary = new ReplicatedDocuments();
        await primary.UploadSnapshotAsync();
        await using var replica = primary.OpenReplica();
        using var timeout = new CancellationTokenSource(ReplicatedDocuments.Patience);
        await using var changes = replica.Changes(cancellationToken: timeout.Token).GetAsyncEnumerator(timeout.Token);
        var next = changes.MoveNextAsync().AsTask(); // waits: the replica holds no change yet

        await using (var session = primary.Primary.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("fed", 33), Json.User, "users/fed");
            await session.SaveChangesAsync();
        }

        await primary.ShipAsync();
        Assert.True(await next);
        Assert.Equal("users/fed", changes.Current.Id);
        Assert.Equal(DocumentChangeKind.Stored, changes.Current.Kind);
    }

    [Fact]
    public async Task Replica_takes_the_feed_state_the_primary_recorded_and_refuses_its_feed_when_the_primary_logs_none()
    {
        using var primary = new ReplicatedDocuments(o => o.ChangeFeed.Enabled = false);
        await using (var session = primary.Primary.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("quiet", 50), Json.User, "users/quiet");
            await session.SaveChangesAsync();
        }

        await primary.UploadSnapshotAsync();

        // The replica's options ask for the feed (the default), which opening a primary would write
        // into the store: a replica takes the primary's state instead and opens without a write (I8).
        await using var replica = primary.OpenReplica(options: new DocumentStoreOptions { ChangeFeed = { Enabled = true } });
        var refused = Assert.Throws<InvalidOperationException>(() => replica.Changes());
        Assert.Contains("off in the primary's store", refused.Message, StringComparison.Ordinal);
        await using var read = replica.OpenSession();
        Assert.NotNull(await read.LoadAsync("users/quiet", Json.User));
    }

    [Fact]
    public async Task Query_for_an_index_the_replica_does_not_hold_yet_is_refused_saying_so_and_runs_once_the_index_is_applied()
    {
        var seed = TestSeed.Next(output, nameof(Query_for_an_index_the_replica_does_not_hold_yet_is_refused_saying_so_and_runs_once_the_index_is_applied));
        using var primary = new ReplicatedDocuments();
        await WriteUsersAsync(primary.Primary, new Random(seed), 3);
        await primary.UploadSnapshotAsync();
        await using var replica = primary.OpenReplica();
        await using (var session = replica.OpenSession())
        {
            var refused = await Assert.ThrowsAsync<NotSupportedException>(() => session.Query(Json.User).Where(u => u.Age >= 40).ToListAsync());
            Assert.Contains("read replica", refused.Message, StringComparison.Ordinal);
        }

        await primary.Primary.EnsureIndexAsync(ByAge);
        await ReplicatedDocuments.WaitAsync(replica, await primary.ShipAsync());
        Assert.Equal(await AgesFromAsync(primary.Primary, 40), await AgesFromAsync(replica, 40));
    }

    [Fact]
    public async Task Replica_of_a_store_the_primary_never_opened_documents_in_is_refused_saying_to_open_the_primary_first()
    {
        using var temp = new TempDirectory();
        var destination = new DirectoryArchiveDestination(temp.Combine("remote"));
        var options = StorageEnvironmentOptions.ForDirectory(temp.Combine("primary"));
        options.JournalArchiveDirectory = temp.Combine("archive");
        options.ArchiveDestination = destination;
        options.ShipArchiveInBackground = false;
        using var environment = StorageEnvironment.Open(options);
        using (var write = environment.BeginWrite())
        {
            write.CreateTree("other").Put("k"u8, "v"u8);
            write.Commit();
        }

        var backup = await environment.BackupAsync(temp.Combine("backup"));
        await ObjectArchive.UploadSnapshotAsync(destination, backup.Directory);
        var refused = Assert.Throws<InvalidOperationException>(() => DocumentStore.OpenReplica(destination, temp.Combine("replica")));
        Assert.Contains("open a DocumentStore on the primary first", refused.Message, StringComparison.Ordinal);

        // The replica's store was closed with the refusal: the directory opens again as a replica.
        using var again = StorageEnvironment.OpenReplica(destination, temp.Combine("replica"));
        Assert.NotNull(again.Replica);
    }
}
