using System.Text.Json;

namespace Voron.Tests.Documents;

/// <summary>Bad input is refused with a clear exception, and the store is left unchanged.</summary>
public sealed class BadInputTests
{
    private static readonly TestJson Json = TestJson.Default;

    private static async Task<(long Transaction, long Documents)> SnapshotAsync(DocumentStore store)
    {
        await Task.Yield();
        return (store.Environment.LastCommittedTransactionId, store.CheckIntegrity().Documents);
    }

    [Theory]
    [InlineData("{\"a\":1,}", 7)]
    [InlineData("{\"a\":1", 6)]
    [InlineData("{\"a\":\n  tru}", 11)]
    [InlineData("[1,2]", 0)]
    [InlineData("\"text\"", 0)]
    [InlineData("", 0)]
    [InlineData("{\"a\":1} {}", 8)]
    [InlineData("{/*c*/}", 1)]
    public async Task StoreRaw_refuses_invalid_json_with_the_byte_position(string json, long position)
    {
        await using var store = DocumentTestStore.InMemory();
        var before = await SnapshotAsync(store);
        await using var session = store.OpenSession();
        var error = Assert.Throws<InvalidJsonException>(() => session.StoreRaw("c", "c/1", Encoding.UTF8.GetBytes(json)));
        Assert.Equal(position, error.BytePosition);
        Assert.Equal("c/1", error.Id);
        Assert.Contains($"at byte {position}", error.Message, StringComparison.Ordinal);
        await session.SaveChangesAsync(); // nothing pending
        Assert.Equal(before, await SnapshotAsync(store));
    }

    [Fact]
    public async Task StoreRaw_refuses_invalid_utf8_and_too_deep_nesting()
    {
        await using var store = DocumentTestStore.InMemory();
        await using var session = store.OpenSession();
        byte[] badUtf8 = [.. "{\"a\":\""u8, 0xC3, 0x28, .. "\"}"u8];
        Assert.Equal(6, Assert.Throws<InvalidJsonException>(() => session.StoreRaw("c", "c/1", badUtf8)).BytePosition);
        var deep = new string('[', 100) + new string(']', 100);
        Assert.Throws<InvalidJsonException>(() => session.StoreRaw("c", "c/1", Encoding.UTF8.GetBytes("{\"a\":" + deep + "}")));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(0xD800)]
    public async Task Empty_or_malformed_ids_are_refused(int loneSurrogate)
    {
        var id = loneSurrogate == 0 ? "" : "a" + (char)loneSurrogate; // built here: xunit would mangle a lone surrogate in its data
        await using var store = DocumentTestStore.InMemory();
        await using var session = store.OpenSession();
        Assert.Throws<ArgumentException>(() => session.Store(new Note(), Json.Note, id));
        Assert.Throws<ArgumentException>(() => session.Delete(id));
        await Assert.ThrowsAsync<ArgumentException>(() => session.LoadAsync(id, Json.Note));
    }

    [Fact]
    public async Task Ids_over_the_limit_are_refused_naming_it()
    {
        await using var store = DocumentTestStore.InMemory();
        await using var session = store.OpenSession();
        var id = new string('x', DocumentLimits.MaxIdBytes + 1);
        var error = Assert.Throws<DocumentLimitException>(() => session.Store(new Note(), Json.Note, id));
        Assert.Equal("id", error.Limit);
        Assert.Equal(DocumentLimits.MaxIdBytes, error.Maximum);
        session.Store(new Note(), Json.Note, new string('x', DocumentLimits.MaxIdBytes)); // exactly the limit is fine
        await session.SaveChangesAsync();
    }

    [Fact]
    public async Task Documents_over_the_size_limit_are_refused_and_nothing_of_the_session_is_saved()
    {
        await using var store = DocumentTestStore.InMemory(o => o.MaxDocumentBytes = 4096);
        var before = await SnapshotAsync(store);
        await using var session = store.OpenSession();
        session.Store(new Note { Text = "small" }, Json.Note, "notes/small");
        session.Store(new Note { Text = new string('x', 5000) }, Json.Note, "notes/big");
        var error = await Assert.ThrowsAsync<DocumentLimitException>(() => session.SaveChangesAsync());
        Assert.Equal("document", error.Limit);
        Assert.Contains("notes/big", error.Message, StringComparison.Ordinal);
        Assert.Equal(before, await SnapshotAsync(store));
        Assert.Throws<DocumentLimitException>(() => session.StoreRaw("n", "n/1", Encoding.UTF8.GetBytes("{\"t\":\"" + new string('x', 5000) + "\"}")));
    }

    [Fact]
    public async Task Index_keys_over_the_limit_are_refused_and_nothing_is_saved()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_name", u => u.Name));
        var before = await SnapshotAsync(store);
        await using var session = store.OpenSession();
        session.Store(DocumentTestStore.NewUser(new string('n', DocumentLimits.MaxIndexKeyBytes), 1), Json.User, "users/long");
        var error = await Assert.ThrowsAsync<DocumentLimitException>(() => session.SaveChangesAsync());
        Assert.Equal("index key", error.Limit);
        Assert.Contains("users_by_name", error.Message, StringComparison.Ordinal);
        Assert.Equal(before, await SnapshotAsync(store));
    }

    [Fact]
    public async Task A_raw_value_that_cannot_be_indexed_is_refused_naming_the_path()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(new IndexDefinition("c", "c_by_a", "a"));
        await using var session = store.OpenSession();
        session.StoreRaw("c", "c/1", "{\"a\":{\"b\":1}}"u8);
        var error = await Assert.ThrowsAsync<ArgumentException>(() => session.SaveChangesAsync());
        Assert.Contains("'a'", error.Message, StringComparison.Ordinal);
        Assert.Contains("c/1", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Querying_without_an_index_is_refused_and_naming_a_member_that_is_not_serialized_is_too()
    {
        await using var store = DocumentTestStore.InMemory();
        await using var session = store.OpenSession();
        await Assert.ThrowsAsync<NotSupportedException>(() => session.Query(Json.User).Where(u => u.Age == 3).ToListAsync());
        Assert.Throws<NotSupportedException>(() => session.Query(Json.User).Where(u => u.Name.Length == 3));
        Assert.Throws<NotSupportedException>(() => session.Query(Json.User).Where(u => u.Age == 3 || u.Age == 4));
        await Assert.ThrowsAsync<NotSupportedException>(() => session.Query(Json.User).Where(u => u.Age != 3).ToListAsync());
        Assert.Throws<NotSupportedException>(() => session.Query(Json.User).Where(u => u.Age == u.Name.Length));
    }

    [Fact]
    public async Task A_type_that_does_not_match_the_stored_json_throws_a_JsonException_naming_the_document()
    {
        await using var store = DocumentTestStore.InMemory();
        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("ada", 3), Json.User, "users/ada");
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            var error = await Assert.ThrowsAsync<JsonException>(() => session.LoadAsync("users/ada", Json.StrictUser));
            Assert.Contains("users/ada", error.Message, StringComparison.Ordinal);
            Assert.Contains(nameof(StrictUser), error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task A_disposed_session_or_store_throws_ObjectDisposedException()
    {
        var store = DocumentTestStore.InMemory();
        var session = store.OpenSession();
        await session.DisposeAsync();
        Assert.Throws<ObjectDisposedException>(() => session.Store(new Note(), Json.Note));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => session.LoadAsync("x", Json.Note));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => session.SaveChangesAsync());

        var live = store.OpenSession();
        live.Store(new Note(), Json.Note);
        await store.DisposeAsync();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => live.SaveChangesAsync());
        Assert.Throws<ObjectDisposedException>(() => store.OpenSession());
        await Assert.ThrowsAsync<ObjectDisposedException>(() => store.EnsureIndexAsync(new IndexDefinition("c", "i", "a")));
    }

    [Fact]
    public async Task Invalid_names_and_definitions_are_refused()
    {
        Assert.Throws<ArgumentException>(() => new IndexDefinition("c", "bad name", "a"));
        Assert.Throws<ArgumentException>(() => new IndexDefinition("c/x", "i", "a"));
        Assert.Throws<ArgumentException>(() => new IndexDefinition("c", "i", "a..b"));
        Assert.Throws<ArgumentException>(() => new IndexDefinition("c", "i", "a[]", "b[]"));
        Assert.Throws<ArgumentException>(() => new IndexDefinition("c", "i", "a", "a"));
        Assert.Throws<ArgumentException>(() => new IndexDefinition("c", "i"));
        Assert.Throws<ArgumentException>(() => IndexDefinition.For(Json.User, "i", u => u.Address));
        Assert.Throws<ArgumentException>(() => IndexDefinition.For(Json.User, "i", u => u.Id));
        await using var store = DocumentTestStore.InMemory();
        await using var session = store.OpenSession();
        Assert.Throws<ArgumentOutOfRangeException>(() => session.Store(new Note(), Json.Note, "n/1", expectedVersion: -1));
    }

    [Fact]
    public void Invalid_options_are_refused_naming_the_setting()
    {
        Assert.Contains("Path", Assert.Throws<ArgumentException>(() => DocumentStore.Open(new DocumentStoreOptions())).Message, StringComparison.Ordinal);
        Assert.Contains("MaxDocumentBytes", Assert.Throws<ArgumentException>(() => DocumentStore.Open(new DocumentStoreOptions { InMemory = true, MaxDocumentBytes = 10 })).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_second_store_over_the_same_environment_is_refused()
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        await using var first = DocumentStore.Open(environment);
        Assert.Throws<InvalidOperationException>(() => DocumentStore.Open(environment));
        await first.DisposeAsync();
        await using var again = DocumentStore.Open(environment); // the first one released it
    }

    [Fact]
    public async Task A_session_is_used_by_one_caller_at_a_time()
    {
        await using var store = DocumentTestStore.InMemory();
        await using var session = store.OpenSession();
        for (var i = 0; i < 2000; i++)
        {
            session.Store(new Note { Text = new string('x', 500) }, Json.Note);
        }

        // Hold the store's write lock so the save is certainly still in flight when the session is
        // used again (checking save.IsCompleted raced with the save's end: the session is free a
        // moment before its task completes).
        var held = store.Environment.BeginWrite();
        Task save;
        try
        {
            save = session.SaveChangesAsync();
            Assert.False(save.IsCompleted, "the save waits for the write lock");
            Assert.Throws<InvalidOperationException>(() => session.Store(new Note(), Json.Note));
        }
        finally
        {
            held.Dispose();
        }

        await save;
    }

    [Fact]
    public async Task A_damaged_record_raises_CorruptionException_naming_the_document()
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        await using var store = DocumentStore.Open(environment);
        await using (var session = store.OpenSession())
        {
            session.Store(new Note { Text = "fine" }, Json.Note, "notes/1");
            await session.SaveChangesAsync();
        }

        await environment.ExecuteAsync(tx => tx.CreateTree("@docs").Put("notes/1"u8, [1, 0, 4, 0, 9, 9]));
        await using (var session = store.OpenSession())
        {
            var error = await Assert.ThrowsAsync<CorruptionException>(() => session.LoadAsync("notes/1", Json.Note));
            Assert.Contains("notes/1", error.Message, StringComparison.Ordinal);
            Assert.Contains("DR1", error.Message, StringComparison.Ordinal);
            await Assert.ThrowsAsync<CorruptionException>(() => session.LoadRawAsync("notes/1"));
        }

        Assert.Throws<CorruptionException>(() => store.CheckIntegrity());
    }

    [Fact]
    public async Task A_store_of_another_layout_version_is_refused_with_FormatVersionException()
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        DocumentStore.Open(environment).Dispose();
        await environment.ExecuteAsync(tx => tx.CreateTree("@docs.meta").Put("format"u8, [4, 0, 0, 0]));
        var error = Assert.Throws<FormatVersionException>(() => DocumentStore.Open(environment));
        Assert.Equal(4, error.Found);
        Assert.Equal(3, error.Supported);
    }
}
