namespace Voron.Tests.Documents;

/// <summary>DocumentStore.BackupAsync: documents and indexes as of the backup's snapshot, restored into a store that opens and checks clean.</summary>
public sealed class DocumentBackupTests
{
    private static readonly TestJson Json = TestJson.Default;

    [Fact]
    public async Task A_document_store_backup_restores_documents_and_indexes_as_of_its_snapshot()
    {
        using var temp = new Voron.Testing.TempDirectory();
        BackupResult backup;
        using (var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(temp.Combine("store"))))
        {
            await using var store = DocumentStore.Open(environment);
            await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
            await using (var session = store.OpenSession())
            {
                for (var i = 0; i < 200; i++)
                {
                    session.Store(DocumentTestStore.NewUser($"user{i}", i % 50, $"u{i}@example.com", "a", "b"), Json.User, $"u/{i:D4}");
                }

                await session.SaveChangesAsync();
            }

            backup = await store.BackupAsync(temp.Combine("backup"));

            await using (var session = store.OpenSession()) // after the snapshot: not in the backup
            {
                session.Delete("u/0000");
                session.Store(DocumentTestStore.NewUser("late", 7, "late@example.com", "a", "b"), Json.User, "u/late");
                await session.SaveChangesAsync();
            }
        }

        var restored = await StorageEnvironment.RestoreAsync(backup.Directory, temp.Combine("restored"));
        Assert.Equal(backup.TransactionId, restored.TransactionId);
        using var restoredEnvironment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(restored.Directory));
        await using var restoredStore = DocumentStore.Open(restoredEnvironment);
        var report = restoredStore.CheckIntegrity();
        Assert.Equal(200, report.Documents);
        var statistics = restoredStore.GetStatistics();
        Assert.Equal(200, Assert.Single(statistics.Collections).Documents);
        Assert.Equal(200, Assert.Single(statistics.Indexes).Entries);
        await using var check = restoredStore.OpenSession();
        Assert.NotNull(await check.LoadAsync("u/0000", Json.User));
        Assert.Null(await check.LoadAsync("u/late", Json.User));
    }
}
