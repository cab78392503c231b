namespace Voron.Tests.Documents.Sessions;

/// <summary>Regression tests of sessions (a load that rewrote, the id member, the id counter), through the public API only.</summary>
public sealed class SessionRegressionTests
{
    private static readonly SessionJson Json = SessionJson.Default;

    private static async Task<(string Json, long Version)> RawAsync(DocumentStore store, string id)
    {
        await using var session = store.OpenSession();
        using var raw = await session.LoadRawAsync(id);
        Assert.NotNull(raw);
        return (Encoding.UTF8.GetString(raw.Json.Span), raw.Metadata.Version);
    }

    private static async Task StoreRawAsync(DocumentStore store, string collection, string id, string json)
    {
        await using var session = store.OpenSession();
        session.StoreRaw(collection, id, Encoding.UTF8.GetBytes(json));
        await session.SaveChangesAsync();
    }

    [Fact]
    public async Task SaveChanges_does_not_write_a_loaded_entity_whose_JSON_has_properties_the_type_lacks()
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "FdUser", "FdUser/1", """{"Name":"a","Extra":1}""");
        var before = await RawAsync(store, "FdUser/1");
        await using (var session = store.OpenSession())
        {
            var user = await session.LoadAsync("FdUser/1", Json.FdUser);
            Assert.NotNull(user);
            await session.SaveChangesAsync();
        }

        Assert.Equal(before, await RawAsync(store, "FdUser/1"));
    }

    // Regression: a session that only loaded a document rewrote it. "Changed" meant "the entity's
    // serialization differs from the stored bytes", so any difference in shape (here the unknown
    // "Extra", and the missing "Id") was a change, and the typed serialization dropped "Extra" and
    // added "Id": null. Fixed by comparing with the serialization at load time (S1). (The first
    // test above is the reported example; this one covers the other shapes.)
    [Theory]
    [InlineData("""{"Age":1,"Name":"a","Score":1.0}""")]
    [InlineData("""{ "Name" : "a",   "Age": 1 , "Big": 1e0 }""")]
    [InlineData("""{"Nickname":"\u0041","Name":"\u00e9"}""")]
    [InlineData("""{"Name":"a","Age":1,"Nickname":null,"Id":"wrong"}""")]
    [InlineData("""{"Name":"a","Extra":{"Deep":[1,2,{"x":null}]},"name":"lower case is another property"}""")]
    public async Task SaveChanges_does_not_write_a_loaded_entity_when_the_stored_JSON_has_another_shape(string stored)
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "FdUser", "FdUser/1", stored);
        var before = await RawAsync(store, "FdUser/1");
        var transactions = store.Environment.LastCommittedTransactionId;
        await using (var session = store.OpenSession())
        {
            Assert.NotNull(await session.LoadAsync("FdUser/1", Json.FdUser));
            Assert.Single(await session.Query(Json.FdUser).AllowScan().ToListAsync());
            await session.SaveChangesAsync();
            await session.SaveChangesAsync();
        }

        Assert.Equal(transactions, store.Environment.LastCommittedTransactionId);
        Assert.Equal(before, await RawAsync(store, "FdUser/1"));
    }

    // The same regression, the changed case: the typed serialization replaced the document and
    // dropped the properties FdUser does not declare. Now they are kept after the typed ones (S2),
    // and the body carries the document's id, never "Id": null.
    [Fact]
    public async Task SaveChanges_keeps_the_properties_the_type_does_not_declare_when_a_loaded_entity_changed()
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "FdUser", "FdUser/1", """{"Name":"a","Extra":1,"More":{"n":[1.50,"x"]}}""");
        var before = await RawAsync(store, "FdUser/1");
        await using (var session = store.OpenSession())
        {
            var user = (await session.LoadAsync("FdUser/1", Json.FdUser))!;
            user.Age = 7;
            await session.SaveChangesAsync();
        }

        var after = await RawAsync(store, "FdUser/1");
        Assert.Equal("""{"Id":"FdUser/1","Name":"a","Age":7,"Nickname":null,"Extra":1,"More":{"n":[1.50,"x"]}}""", after.Json);
        Assert.True(after.Version > before.Version);
        store.CheckIntegrity(); // throws on a violation
    }

    // Regression: a typed load or query gave the JSON's "Id" (null when absent) instead of the
    // document's id, so storing the entity again in a new session made a new document (2 became 4).
    // The session now sets the id member from the key on load and query (S3).
    [Fact]
    public async Task Load_and_query_set_the_id_member_from_the_document_id()
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "FdUser", "FdUser/1", """{"Name":"no id"}""");
        await StoreRawAsync(store, "FdUser", "FdUser/2", """{"Id":"elsewhere","Name":"wrong id"}""");
        await using (var session = store.OpenSession())
        {
            Assert.Equal("FdUser/1", (await session.LoadAsync("FdUser/1", Json.FdUser))!.Id);
            Assert.Equal("FdUser/2", (await session.LoadAsync(["FdUser/2"], Json.FdUser))["FdUser/2"]!.Id);
        }

        List<FdUser> queried;
        await using (var session = store.OpenSession())
        {
            queried = await session.Query(Json.FdUser).AllowScan().ToListAsync();
            Assert.Equal(["FdUser/1", "FdUser/2"], queried.Select(u => u.Id).Order(StringComparer.Ordinal));
        }

        await using (var session = store.OpenSession())
        {
            foreach (var user in queried)
            {
                user.Nickname = "again";
                session.Store(user, Json.FdUser);
            }

            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            Assert.Equal(2, await session.Query(Json.FdUser).AllowScan().CountAsync());
        }
    }

    // Regression: only ids stored in their own collection raised the id counter, so after
    // StoreRaw("Other", "FdUser/1") a new FdUser was given "FdUser/1" and its save failed with a
    // ConcurrencyException. Every id of the shape "<prefix>/<n>" now raises the prefix's counter,
    // whatever its collection (I5), and the generator skips ids a stored document has.
    [Fact]
    public async Task A_generated_id_is_never_one_a_document_of_another_collection_has()
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "Other", "FdUser/1", """{"x":1}""");
        await using var session = store.OpenSession();
        var user = new FdUser { Name = "new" };
        session.Store(user, Json.FdUser);
        Assert.NotEqual("FdUser/1", user.Id);
        await session.SaveChangesAsync();
        Assert.Equal("FdUser/2", user.Id);
    }

    // The same regression, "the version went from 1 to 3": each session that only read the document
    // wrote it again whenever its serializer's shape differed from the stored bytes — here the
    // source-generated Pascal-case names, then the reflection-based camel-case ones (web defaults,
    // case-insensitive reads): two writes, versions 2 and 3. Versions are store-wide (I4), so any
    // other write in between raises the number seen too. Now neither session writes.
    [Fact]
    public async Task Sessions_that_only_read_with_different_serializer_settings_never_write()
    {
        await using var store = DocumentTestStore.InMemory();
        await StoreRawAsync(store, "FdUser", "FdUser/1", """{"Name":"a","Extra":1}""");
        var before = await RawAsync(store, "FdUser/1");
        await using (var session = store.OpenSession())
        {
            Assert.NotNull(await session.LoadAsync("FdUser/1", Json.FdUser));
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            var user = await session.LoadAsync<FdUser>("FdUser/1");
            Assert.Equal(("a", "FdUser/1"), (user!.Name, user.Id));
            await session.SaveChangesAsync();
        }

        Assert.Equal(before, await RawAsync(store, "FdUser/1"));
    }
}
