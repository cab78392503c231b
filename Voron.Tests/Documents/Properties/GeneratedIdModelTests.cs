using Voron.Tests.Documents.Sessions;

namespace Voron.Tests.Documents.Properties;

/// <summary>
/// Generated ids are store-wide (I5): an id of the shape "&lt;collection&gt;/&lt;n&gt;" raises that
/// collection's counter whatever collection its document is stored in, through sessions (typed and
/// raw) and bulk inserts, across reopens; a generated id is never one a stored document has or had.
/// </summary>
public sealed class GeneratedIdModelTests(ITestOutputHelper output)
{
    private static readonly SessionJson Json = SessionJson.Default;

    // Each row: an id stored raw in a collection, then (after a reopen) the id a new FdUser gets.
    [Theory]
    [InlineData("FdUser", "FdUser/5", "FdUser/6")]
    [InlineData("Other", "FdUser/5", "FdUser/6")]
    [InlineData("Other", "FdUser/123456789012", "FdUser/123456789013")]
    [InlineData("Other", "fduser/5", "FdUser/1")] // ids are ordinal: another case is another id
    [InlineData("Other", "FdUser/05", "FdUser/1")] // a leading zero: never a generated id's shape
    [InlineData("Other", "FdUser/5/x", "FdUser/1")]
    [InlineData("Other", "FdUser/-5", "FdUser/1")]
    [InlineData("Other", "Other/5", "FdUser/1")]
    public async Task Generated_id_continues_above_every_stored_id_of_its_shape_across_reopen(string collection, string id, string next)
    {
        using var directory = new TempDirectory();
        await using (var store = DocumentTestStore.InDirectory(directory.Path))
        await using (var session = store.OpenSession())
        {
            session.StoreRaw(collection, id, """{"x":1}"""u8);
            await session.SaveChangesAsync();
        }

        await using (var store = DocumentTestStore.InDirectory(directory.Path))
        {
            await using (var session = store.OpenSession())
            {
                var user = new FdUser();
                session.Store(user, Json.FdUser);
                await session.SaveChangesAsync();
                Assert.Equal(next, user.Id);
            }

            var bulk = new FdUser();
            await store.BulkInsertAsync([bulk], Json.FdUser);
            Assert.NotEqual(next, bulk.Id);
            store.CheckIntegrity();
        }
    }

    // A store written before counters were store-wide can hold "FdUser/3" in another collection
    // with "ctr/FdUser" below 3. The generator skips an id a stored document has.
    [Fact]
    public async Task Generated_id_skips_an_id_a_document_has_when_the_counter_is_behind()
    {
        using var directory = new TempDirectory();
        await using (var store = DocumentTestStore.InDirectory(directory.Path))
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("Other", "FdUser/3", """{"x":1}"""u8);
            await session.SaveChangesAsync();
        }

        var options = StorageEnvironmentOptions.ForDirectory(directory.Path);
        using (var environment = StorageEnvironment.Open(options))
        using (var write = environment.BeginWrite())
        {
            var meta = write.CreateTree("@docs.meta");
            meta.Put("ctr/FdUser"u8, new byte[8]); // what the old code left: 0
            write.Commit();
        }

        await using (var store = DocumentTestStore.InDirectory(directory.Path))
        await using (var session = store.OpenSession())
        {
            var users = Enumerable.Range(0, 3).Select(_ => new FdUser()).ToList();
            users.ForEach(u => session.Store(u, Json.FdUser));
            await session.SaveChangesAsync();
            Assert.Equal(["FdUser/1", "FdUser/2", "FdUser/4"], users.Select(u => u.Id));
        }
    }

    [Fact]
    public async Task Random_stores_in_any_collection_never_make_a_generated_id_collide()
    {
        var seed = TestSeed.Next(output, nameof(Random_stores_in_any_collection_never_make_a_generated_id_collide));
        var random = new Random(seed);
        using var directory = new TempDirectory();
        var store = DocumentTestStore.InDirectory(directory.Path);
        var collections = new Dictionary<string, string>(StringComparer.Ordinal); // id -> collection
        var everMax = new Dictionary<string, long>(StringComparer.Ordinal) { ["FdUser"] = 0, ["FdNote"] = 0 };
        try
        {
            for (var step = 0; step < 400; step++)
            {
                var context = $"seed {seed}, step {step}";
                switch (random.Next(7))
                {
                    case 0:
                        await store.DisposeAsync();
                        store = DocumentTestStore.InDirectory(directory.Path);
                        break;
                    case 1:
                    case 2:
                    {
                        var prefix = new[] { "FdUser", "FdNote", "fduser", "Other" }[random.Next(4)];
                        var id = $"{prefix}/{random.Next(1, 80)}";
                        var collection = collections.TryGetValue(id, out var existing) ? existing : new[] { "FdUser", "FdNote", "Other" }[random.Next(3)];
                        await using var session = store.OpenSession();
                        session.StoreRaw(collection, id, """{"Text":"raw"}"""u8);
                        await session.SaveChangesAsync();
                        Saved(id, collection);
                        break;
                    }

                    case 3:
                    {
                        await using var session = store.OpenSession();
                        var user = new FdUser();
                        session.Store(user, Json.FdUser);
                        var note = new FdNote();
                        session.Store(note, Json.FdNote);
                        var noteId = session.GetMetadata(note)!.Id;
                        Generated(user.Id!, "FdUser", context);
                        Generated(noteId, "FdNote", context);
                        await session.SaveChangesAsync(); // a collision would throw ConcurrencyException
                        Saved(user.Id!, "FdUser");
                        Saved(noteId, "FdNote");
                        break;
                    }

                    case 4:
                    {
                        var users = Enumerable.Range(0, random.Next(1, 5)).Select(_ => new FdUser()).ToList();
                        if (random.Next(2) == 0)
                        {
                            var explicitId = $"FdUser/{random.Next(1, 120)}";
                            if (!collections.TryGetValue(explicitId, out var existing) || existing == "FdUser")
                            {
                                users.Add(new FdUser { Id = explicitId });
                            }
                        }

                        var generated = new HashSet<FdUser>(users.Where(u => u.Id == null), ReferenceEqualityComparer.Instance);
                        await store.BulkInsertAsync(users, Json.FdUser);
                        foreach (var user in users)
                        {
                            if (generated.Contains(user))
                            {
                                Generated(user.Id!, "FdUser", context);
                            }

                            Saved(user.Id!, "FdUser");
                        }

                        break;
                    }

                    default:
                    {
                        if (collections.Count == 0)
                        {
                            break;
                        }

                        var id = collections.Keys.ElementAt(random.Next(collections.Count));
                        await using var session = store.OpenSession();
                        session.Delete(id);
                        await session.SaveChangesAsync();
                        collections.Remove(id);
                        break;
                    }
                }
            }

            store.CheckIntegrity();
        }
        finally
        {
            await store.DisposeAsync();
        }

        void Generated(string id, string collection, string context)
        {
            Assert.False(collections.ContainsKey(id), $"{context}: generated id '{id}' is one a stored document has");
            var n = long.Parse(id.AsSpan(collection.Length + 1), System.Globalization.CultureInfo.InvariantCulture);
            Assert.True(id.StartsWith(collection + "/", StringComparison.Ordinal) && n > everMax[collection],
                $"{context}: generated id '{id}' is not above {collection}/{everMax[collection]}, an id a document had");
        }

        void Saved(string id, string collection)
        {
            collections[id] = collection;
            var slash = id.IndexOf('/', StringComparison.Ordinal);
            if (everMax.TryGetValue(id[..slash], out var max) && long.TryParse(id.AsSpan(slash + 1), out var n) && id[slash + 1] != '0')
            {
                everMax[id[..slash]] = Math.Max(max, n);
            }
        }
    }
}
