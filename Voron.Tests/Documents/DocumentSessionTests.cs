namespace Voron.Tests.Documents;

public sealed class DocumentSessionTests
{
    private static readonly TestJson Json = TestJson.Default;

    [Fact]
    public async Task Store_then_load_in_a_new_session_returns_the_document_with_metadata()
    {
        await using var store = DocumentTestStore.InMemory();
        var user = DocumentTestStore.NewUser("Ada", 36, "ada@example.com", "math");
        await using (var session = store.OpenSession())
        {
            session.Store(user, Json.User);
            Assert.Equal("User/1", user.Id); // generated at Store, written into the Id member
            await session.SaveChangesAsync();
            var metadata = session.GetMetadata(user)!;
            Assert.Equal("User", metadata.Collection);
            Assert.True(metadata.Version > 0);
        }

        await using (var session = store.OpenSession())
        {
            var loaded = await session.LoadAsync("User/1", Json.User);
            Assert.NotNull(loaded);
            Assert.Equal("Ada", loaded.Name);
            Assert.Equal(["math"], loaded.Tags);
            Assert.Same(loaded, await session.LoadAsync("User/1", Json.User)); // identity map
            Assert.Null(await session.LoadAsync("User/2", Json.User));
        }
    }

    [Fact]
    public async Task SaveChanges_writes_only_changed_documents()
    {
        await using var store = DocumentTestStore.InMemory();
        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("a", 1), Json.User, "users/a");
            session.Store(DocumentTestStore.NewUser("b", 2), Json.User, "users/b");
            await session.SaveChangesAsync();
        }

        var before = store.Environment.LastCommittedTransactionId;
        await using (var session = store.OpenSession())
        {
            var a = (await session.LoadAsync("users/a", Json.User))!;
            var b = (await session.LoadAsync("users/b", Json.User))!;
            var versionB = session.GetMetadata(b)!.Version;
            await session.SaveChangesAsync(); // nothing changed: no transaction
            Assert.Equal(before, store.Environment.LastCommittedTransactionId);

            a.Age = 99;
            await session.SaveChangesAsync();
            Assert.Equal(before + 1, store.Environment.LastCommittedTransactionId);
            Assert.Equal(versionB, session.GetMetadata(b)!.Version); // b was not written
            Assert.True(session.GetMetadata(a)!.Version > versionB);
        }
    }

    [Fact]
    public async Task Load_sees_the_sessions_own_pending_changes()
    {
        await using var store = DocumentTestStore.InMemory();
        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("a", 1), Json.User, "users/a");
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            var pending = DocumentTestStore.NewUser("new", 5);
            session.Store(pending, Json.User, "users/new");
            Assert.Same(pending, await session.LoadAsync("users/new", Json.User));
            session.Delete("users/a");
            Assert.Null(await session.LoadAsync("users/a", Json.User));
            var raw = new System.Buffers.ArrayBufferWriter<byte>();
            Assert.NotNull(await session.LoadRawAsync("users/new", raw));
            Assert.Contains("\"new\"", System.Text.Encoding.UTF8.GetString(raw.WrittenSpan), StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Expected_version_mismatch_throws_ConcurrencyException_and_saves_nothing_of_the_session()
    {
        await using var store = DocumentTestStore.InMemory();
        long version;
        await using (var session = store.OpenSession())
        {
            var user = DocumentTestStore.NewUser("a", 1);
            session.Store(user, Json.User, "users/a");
            await session.SaveChangesAsync();
            version = session.GetMetadata(user)!.Version;
        }

        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("other", 2), Json.User, "users/other");
            session.Store(DocumentTestStore.NewUser("a2", 2), Json.User, "users/a", expectedVersion: version + 10);
            var conflict = await Assert.ThrowsAsync<ConcurrencyException>(() => session.SaveChangesAsync());
            Assert.Equal("users/a", conflict.Id);
            Assert.Equal(version + 10, conflict.ExpectedVersion);
            Assert.Equal(version, conflict.ActualVersion);
        }

        await using (var session = store.OpenSession())
        {
            Assert.Null(await session.LoadAsync("users/other", Json.User)); // nothing of the failed session
            Assert.Equal("a", (await session.LoadAsync("users/a", Json.User))!.Name);
        }
    }

    [Fact]
    public async Task Two_sessions_editing_the_same_loaded_document_conflict_by_default()
    {
        await using var store = DocumentTestStore.InMemory();
        await using (var setup = store.OpenSession())
        {
            setup.Store(DocumentTestStore.NewUser("a", 1), Json.User, "users/a");
            await setup.SaveChangesAsync();
        }

        await using var first = store.OpenSession();
        await using var second = store.OpenSession();
        (await first.LoadAsync("users/a", Json.User))!.Age = 10;
        (await second.LoadAsync("users/a", Json.User))!.Age = 20;
        await first.SaveChangesAsync();
        await Assert.ThrowsAsync<ConcurrencyException>(() => second.SaveChangesAsync());
        await using var check = store.OpenSession();
        Assert.Equal(10, (await check.LoadAsync("users/a", Json.User))!.Age);
    }

    [Fact]
    public async Task Expected_version_zero_means_the_document_must_be_new()
    {
        await using var store = DocumentTestStore.InMemory();
        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("a", 1), Json.User, "users/a", expectedVersion: 0);
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("b", 1), Json.User, "users/a", expectedVersion: 0);
            var conflict = await Assert.ThrowsAsync<ConcurrencyException>(() => session.SaveChangesAsync());
            Assert.Equal(0, conflict.ExpectedVersion);
        }
    }

    [Fact]
    public async Task Delete_with_expected_version_checks_it()
    {
        await using var store = DocumentTestStore.InMemory();
        long version;
        await using (var session = store.OpenSession())
        {
            var user = DocumentTestStore.NewUser("a", 1);
            session.Store(user, Json.User, "users/a");
            await session.SaveChangesAsync();
            version = session.GetMetadata(user)!.Version;
        }

        await using (var session = store.OpenSession())
        {
            session.Delete("users/a", version - 1 + 2);
            await Assert.ThrowsAsync<ConcurrencyException>(() => session.SaveChangesAsync());
        }

        await using (var session = store.OpenSession())
        {
            session.Delete("users/a", version);
            await session.SaveChangesAsync();
            Assert.Null(await session.LoadAsync("users/a", Json.User));
        }
    }

    [Fact]
    public async Task Generated_ids_are_never_reused_after_a_delete_or_a_reopen()
    {
        using var directory = new TempDirectory();
        var ids = new List<string>();
        await using (var store = DocumentTestStore.InDirectory(directory.Path))
        {
            await using var session = store.OpenSession();
            for (var i = 0; i < 3; i++)
            {
                var note = new Note { Text = $"n{i}" };
                session.Store(note, Json.Note);
                ids.Add(session.GetMetadata(note)!.Id);
            }

            await session.SaveChangesAsync();
            session.Delete(ids[2]);
            await session.SaveChangesAsync();
        }

        Assert.Equal(["Note/1", "Note/2", "Note/3"], ids);
        await using (var store = DocumentTestStore.InDirectory(directory.Path))
        {
            await using var session = store.OpenSession();
            var note = new Note { Text = "after" };
            session.Store(note, Json.Note);
            Assert.Equal("Note/4", session.GetMetadata(note)!.Id);
        }
    }

    [Fact]
    public async Task Loading_a_document_of_another_collection_is_refused()
    {
        await using var store = DocumentTestStore.InMemory();
        await using (var session = store.OpenSession())
        {
            session.Store(new Order { Customer = "c" }, Json.Order, "x/1");
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            var error = await Assert.ThrowsAsync<InvalidOperationException>(() => session.LoadAsync("x/1", Json.User));
            Assert.Contains("orders", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task LoadAsync_of_many_ids_reads_one_snapshot_and_maps_missing_to_null()
    {
        await using var store = DocumentTestStore.InMemory();
        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("a", 1), Json.User, "users/a");
            session.Store(DocumentTestStore.NewUser("b", 2), Json.User, "users/b");
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            var found = await session.LoadAsync(["users/a", "users/missing", "users/b"], Json.User);
            Assert.Equal(3, found.Count);
            Assert.Equal("a", found["users/a"]!.Name);
            Assert.Null(found["users/missing"]);
        }
    }
}
