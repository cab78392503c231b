namespace Voron.Tests.Documents.Sessions;

/// <summary>The documented rules of S2 and S3 (DocumentSession.cs) at their edges.</summary>
public sealed class SessionIdentityTests
{
    private static readonly SessionJson Json = SessionJson.Default;

    private static async Task<string> JsonOfAsync(DocumentStore store, string id)
    {
        await using var session = store.OpenSession();
        using var raw = await session.LoadRawAsync(id);
        return Encoding.UTF8.GetString(raw!.Json.Span);
    }

    private static async Task StoreRawAsync(DocumentStore store, string collection, string id, string json)
    {
        await using var session = store.OpenSession();
        session.StoreRaw(collection, id, Encoding.UTF8.GetBytes(json));
        await session.SaveChangesAsync();
    }

    [Fact]
    public async Task SaveChanges_refuses_a_tracked_entity_whose_id_member_was_changed()
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "FdUser", "FdUser/1", """{"Name":"a"}""");
        await using var session = store.OpenSession();
        var user = (await session.LoadAsync("FdUser/1", Json.FdUser))!;
        user.Id = "FdUser/2";
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => session.SaveChangesAsync());
        Assert.Contains("FdUser/1", error.Message, StringComparison.Ordinal);
        Assert.Equal("""{"Name":"a"}""", await JsonOfAsync(store, "FdUser/1"));
        user.Id = "FdUser/1";
        user.Age = 3;
        await session.SaveChangesAsync();
        Assert.Equal("""{"Id":"FdUser/1","Name":"a","Age":3,"Nickname":null}""", await JsonOfAsync(store, "FdUser/1"));
    }

    [Fact]
    public async Task A_type_with_extension_data_decides_itself_which_unknown_properties_stay()
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "FdOpenUser", "FdOpenUser/1", """{"Name":"a","Keep":1,"Drop":2}""");
        await using (var session = store.OpenSession())
        {
            var user = (await session.LoadAsync("FdOpenUser/1", Json.FdOpenUser))!;
            user.Extra!.Remove("Drop");
            await session.SaveChangesAsync();
        }

        Assert.Equal("""{"Id":"FdOpenUser/1","Name":"a","Keep":1}""", await JsonOfAsync(store, "FdOpenUser/1"));
    }

    [Fact]
    public async Task A_declared_member_left_out_of_the_JSON_is_not_brought_back_from_the_stored_document()
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "FdSparse", "FdSparse/1", """{"Name":"old","Other":true}""");
        await using (var session = store.OpenSession())
        {
            var sparse = (await session.LoadAsync("FdSparse/1", Json.FdSparse))!;
            sparse.Name = null; // not written (WhenWritingNull): the stored "old" must not come back
            await session.SaveChangesAsync();
        }

        Assert.Equal("""{"Id":"FdSparse/1","Other":true}""", await JsonOfAsync(store, "FdSparse/1"));
    }

    [Fact]
    public async Task Store_of_an_object_the_session_did_not_load_replaces_the_whole_document()
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "FdUser", "FdUser/1", """{"Name":"a","Extra":1}""");
        await using (var session = store.OpenSession())
        {
            session.Store(new FdUser { Name = "b" }, Json.FdUser, "FdUser/1");
            await session.SaveChangesAsync();
        }

        Assert.Equal("""{"Id":"FdUser/1","Name":"b","Age":0,"Nickname":null}""", await JsonOfAsync(store, "FdUser/1"));
    }

    [Fact]
    public async Task A_type_without_an_id_member_keeps_unknown_properties_and_its_id_in_the_session()
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "FdNote", "FdNote/1", """{"Text":"a","Id":"ignored","Extra":[1]}""");
        await using (var session = store.OpenSession())
        {
            var note = (await session.LoadAsync("FdNote/1", Json.FdNote))!;
            Assert.Equal("FdNote/1", session.GetMetadata(note)!.Id);
            note.Text = "b";
            await session.SaveChangesAsync();
        }

        Assert.Equal("""{"Text":"b","Id":"ignored","Extra":[1]}""", await JsonOfAsync(store, "FdNote/1"));
    }
}
