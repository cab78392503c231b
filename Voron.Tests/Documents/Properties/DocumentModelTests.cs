namespace Voron.Tests.Documents.Properties;

/// <summary>
/// Model-based test of the document store: random sessions of stores, updates, blind overwrites,
/// deletes, right and wrong expected versions and unique-index violations, against an in-memory
/// model; random queries (equality, ranges with order, skip and take, multikey Contains,
/// compound, id prefix, counts) compared with LINQ to objects over the model; clean reopens and
/// crash recoveries (the process dies without a final flush) along the way, each followed by the
/// integrity check. At least 50,000 operations per run (VORON_SOAK scales it); the seed is printed
/// and VORON_SEED replays it.
/// </summary>
public sealed class DocumentModelTests(ITestOutputHelper output)
{
    private static readonly TestJson Json = TestJson.Default;
    private static readonly string[] Cities = ["Oslo", "Lima", "Pune", "Kyiv"];
    private static readonly string[] TagPool = ["red", "green", "blue", "cyan", "pink", "gold"];

    [Fact]
    public async Task Random_sessions_and_queries_match_the_model_across_reopens_and_recoveries()
    {
        var seed = TestSeed.Next(output, nameof(Random_sessions_and_queries_match_the_model_across_reopens_and_recoveries));
        var random = new Random(seed);
        var operations = CrashBudget.Count(50_000, 0.05);
        using var fileSystem = new InMemoryFileSystem(reservePerFile: 4L << 30);
        var model = new DocumentModel();
        var stats = new Dictionary<string, int>(StringComparer.Ordinal);
        var environment = Open(fileSystem);
        var store = DocumentStore.Open(environment);
        try
        {
            await DefineIndexesAsync(store);
            var done = 0;
            var sessions = 0;
            while (done < operations)
            {
                var context = $"seed {seed}, session {sessions}, operation {done}";
                if (random.Next(4) == 0)
                {
                    done += await QueryAsync(store, model, random, stats, context);
                }
                else
                {
                    done += await SessionAsync(store, model, random, stats, context);
                }

                sessions++;
                switch (random.Next(400))
                {
                    case 0:
                        store.Dispose();
                        environment.Dispose();
                        (environment, store) = Reopen(fileSystem, model, stats, "reopen", context);
                        break;
                    case 1:
                        store.Dispose();
                        environment.CloseWithoutFlush(); // the process dies: recovery from the journal on open
                        (environment, store) = Reopen(fileSystem, model, stats, "recovery", context);
                        break;
                    case 2:
                        Assert.Equal(model.Users.Count, store.CheckIntegrity().Documents);
                        break;
                }
            }

            store.Dispose();
            environment.CloseWithoutFlush();
            (environment, store) = Reopen(fileSystem, model, stats, "recovery", $"seed {seed}, the end");
            output.WriteLine($"{done} operations in {sessions} sessions and queries, {model.Users.Count} documents at the end: " + string.Join(", ", stats.OrderBy(s => s.Key, StringComparer.Ordinal).Select(s => $"{s.Key} {s.Value}")));
            Assert.True(stats.GetValueOrDefault("conflict") > 0 && stats.GetValueOrDefault("unique violation") > 0 && stats.GetValueOrDefault("recovery") > 1, $"seed {seed}: the run should exercise conflicts, unique violations and recoveries");
        }
        finally
        {
            store.Dispose();
            environment.Dispose();
        }
    }

    private static StorageEnvironment Open(InMemoryFileSystem fileSystem)
    {
        var options = StorageEnvironmentOptions.ForFileSystem("/documents-model", fileSystem);
        options.JournalFileSize = 1 << 20;
        options.MaxDataFileSize = 4L << 30;
        return StorageEnvironment.Open(options);
    }

    private static (StorageEnvironment, DocumentStore) Reopen(InMemoryFileSystem fileSystem, DocumentModel model, Dictionary<string, int> stats, string what, string context)
    {
        Count(stats, what);
        var environment = Open(fileSystem);
        var store = DocumentStore.Open(environment);
        var report = store.CheckIntegrity();
        Assert.True(model.Users.Count == report.Documents, $"{context}: after {what} the store holds {report.Documents} documents, the model {model.Users.Count}");
        Assert.True(report.LastVersion >= model.LastVersion, $"{context}: after {what} the last version went back");
        Assert.All(store.GetIndexes(), i => Assert.True(i.IsReady));
        return (environment, store);
    }

    private static async Task DefineIndexesAsync(DocumentStore store)
    {
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "by_email", u => u.Email).AsUnique());
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "by_age", u => u.Age));
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "by_tags", u => u.Tags));
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "by_city_age", u => u.Address!.City, u => u.Age));
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "by_name", u => u.Name));
    }

    private static void Count(Dictionary<string, int> stats, string what) => stats[what] = stats.GetValueOrDefault(what) + 1;

    private static User RandomUser(Random random, string? id)
    {
        var user = new User
        {
            Id = id,
            Name = "n" + random.Next(1000).ToString("D3", System.Globalization.CultureInfo.InvariantCulture),
            Email = random.Next(5) == 0 ? null : $"e{random.Next(20000)}@x",
            Age = random.Next(60),
            Active = random.Next(2) == 0,
            Tags = [.. TagPool.Where(_ => random.Next(3) == 0)],
            Address = random.Next(6) == 0 ? null : new Address { City = Cities[random.Next(Cities.Length)], Country = "c" },
        };
        return user;
    }

    private static void Mutate(Random random, User user)
    {
        switch (random.Next(5))
        {
            case 0:
                user.Age = random.Next(60);
                break;
            case 1:
                user.Email = random.Next(5) == 0 ? null : $"e{random.Next(20000)}@x";
                break;
            case 2:
                user.Tags = [.. TagPool.Where(_ => random.Next(3) == 0)];
                break;
            case 3:
                user.Address = random.Next(6) == 0 ? null : new Address { City = Cities[random.Next(Cities.Length)], Country = "c" };
                break;
            default:
                user.Name = "n" + random.Next(1000).ToString("D3", System.Globalization.CultureInfo.InvariantCulture);
                break;
        }
    }

    /// <summary>One session of 1 to 8 changes (and loads), saved; the model predicts its outcome.</summary>
    private static async Task<int> SessionAsync(DocumentStore store, DocumentModel model, Random random, Dictionary<string, int> stats, string context)
    {
        await using var session = store.OpenSession();
        var touched = new HashSet<string>(StringComparer.Ordinal);
        var puts = new Dictionary<string, User>(StringComparer.Ordinal);
        var deletes = new HashSet<string>(StringComparer.Ordinal);
        var conflict = false;
        var operations = 0;
        var changes = random.Next(1, 9);
        var existing = model.Ids;
        for (var c = 0; c < changes; c++, operations++)
        {
            var pick = existing.Count > 0 ? existing[random.Next(existing.Count)] : null;
            var kind = random.Next(10);
            if (pick != null && touched.Contains(pick))
            {
                kind = 9; // a new document instead
            }

            switch (kind)
            {
                case 0 or 1 or 2 when pick != null: // load and change
                    {
                        var loaded = await session.LoadAsync(pick, Json.User);
                        Assert.True(loaded != null && DocumentModel.Same(loaded, model.Users[pick].User), $"{context}: load of '{pick}' differs from the model");
                        Assert.Equal(model.Users[pick].Version, session.GetMetadata(loaded)!.Version);
                        touched.Add(pick); // tracked now: the session refuses another object under its id
                        if (random.Next(5) == 0)
                        {
                            break; // loaded, unchanged: not written
                        }

                        Mutate(random, loaded);
                        puts[pick] = DocumentModel.Copy(loaded);
                        break;
                    }

                case 3 or 4 when pick != null: // blind overwrite, with a right, wrong or no expected version
                    {
                        var user = RandomUser(random, pick);
                        long? expected = random.Next(8) switch
                        {
                            0 or 1 or 2 => null,
                            7 => model.Users[pick].Version + random.Next(1, 5),
                            _ => model.Users[pick].Version,
                        };
                        conflict |= expected != null && expected != model.Users[pick].Version;
                        session.Store(user, Json.User, pick, expected);
                        touched.Add(pick);
                        puts[pick] = DocumentModel.Copy(user);
                        break;
                    }

                case 5 or 6 when pick != null: // delete, with a right, wrong or no expected version
                    {
                        var mode = random.Next(8) switch { 0 or 1 or 2 => 0, 7 => 2, _ => 1 };
                        if (mode == 0)
                        {
                            session.Delete(pick);
                        }
                        else
                        {
                            var expected = mode == 1 ? model.Users[pick].Version : model.Users[pick].Version - 1;
                            conflict |= expected != model.Users[pick].Version;
                            session.Delete(pick, expected);
                        }

                        touched.Add(pick);
                        deletes.Add(pick);
                        break;
                    }

                case 7: // a new document that must be new: conflicts when the id exists
                    {
                        var id = $"users/{random.Next(3000)}";
                        if (touched.Contains(id))
                        {
                            break;
                        }

                        var user = RandomUser(random, id);
                        conflict |= model.Users.ContainsKey(id);
                        session.Store(user, Json.User, id, expectedVersion: 0);
                        touched.Add(id);
                        puts[id] = DocumentModel.Copy(user);
                        break;
                    }

                default: // a new document with a generated id
                    {
                        var user = RandomUser(random, null);
                        session.Store(user, Json.User);
                        Assert.True(!model.CommittedIds.Contains(user.Id!) && !touched.Contains(user.Id!), $"{context}: generated id '{user.Id}' belonged to a stored document");
                        touched.Add(user.Id!);
                        puts[user.Id!] = DocumentModel.Copy(user);
                        break;
                    }
            }
        }

        // The outcome, from the model: a wrong expected version fails first (checked before any
        // write), then a unique violation (two documents with one non-null email afterwards).
        var owners = new Dictionary<string, string?>(StringComparer.Ordinal); // emails the session frees or takes
        foreach (var id in deletes.Concat(puts.Keys))
        {
            if (model.Users.TryGetValue(id, out var old) && old.User.Email is { } freed)
            {
                owners[freed] = null;
            }
        }

        var unique = false;
        foreach (var (id, user) in puts)
        {
            if (user.Email is not { } email)
            {
                continue;
            }

            var owner = owners.TryGetValue(email, out var changed) ? changed : model.EmailOwners.GetValueOrDefault(email);
            unique |= owner != null && owner != id;
            owners[email] = id;
        }

        if (conflict)
        {
            await Assert.ThrowsAsync<ConcurrencyException>(() => session.SaveChangesAsync());
            Count(stats, "conflict");
            return operations;
        }

        if (unique)
        {
            var error = await Assert.ThrowsAsync<UniqueConstraintException>(() => session.SaveChangesAsync());
            Assert.Equal("by_email", error.Index);
            Count(stats, "unique violation");
            return operations;
        }

        await session.SaveChangesAsync();
        Count(stats, "saved");
        var before = model.LastVersion;
        foreach (var id in deletes)
        {
            model.Remove(id);
        }

        foreach (var (id, user) in puts)
        {
            var entity = await session.LoadAsync(id, Json.User);
            var version = session.GetMetadata(entity!)!.Version;
            Assert.True(version > before || (model.Users.TryGetValue(id, out var old) && old.Version == version), $"{context}: '{id}' got version {version}, not above {before}");
            model.Put(id, user, version);
            model.CommittedIds.Add(id);
            model.LastVersion = Math.Max(model.LastVersion, version);
        }

        return operations;
    }

    /// <summary>One random query in a fresh session, compared with LINQ to objects over the model.</summary>
    private static async Task<int> QueryAsync(DocumentStore store, DocumentModel model, Random random, Dictionary<string, int> stats, string context)
    {
        await using var session = store.OpenSession();
        var users = model.Users.Values.Select(u => u.User).ToList();
        IEnumerable<User> expected;
        IDocumentQuery<User> query;
        var ordered = true;
        switch (random.Next(8))
        {
            case 0:
                {
                    var email = random.Next(2) == 0 && users.Count > 0 ? users[random.Next(users.Count)].Email : $"e{random.Next(20000)}@x";
                    query = session.Query(Json.User).Where(u => u.Email == email);
                    expected = users.Where(u => u.Email == email);
                    ordered = false;
                    break;
                }

            case 1:
                {
                    var age = random.Next(60);
                    query = session.Query(Json.User).Where(u => u.Age == age);
                    expected = users.Where(u => u.Age == age).OrderBy(u => u.Id, StringComparer.Ordinal);
                    break;
                }

            case 2:
                {
                    int low = random.Next(60), high = random.Next(60);
                    var descending = random.Next(2) == 0;
                    var q = session.Query(Json.User).Where(u => u.Age >= low && u.Age < high);
                    query = descending ? q.OrderByDescending(u => u.Age) : q.OrderBy(u => u.Age);
                    var matching = users.Where(u => u.Age >= low && u.Age < high);
                    expected = descending
                        ? matching.OrderByDescending(u => u.Age).ThenByDescending(u => u.Id, StringComparer.Ordinal)
                        : matching.OrderBy(u => u.Age).ThenBy(u => u.Id, StringComparer.Ordinal);
                    int skip = random.Next(5), take = random.Next(1, 30);
                    query = query.Skip(skip).Take(take);
                    expected = expected.Skip(skip).Take(take);
                    break;
                }

            case 3:
                {
                    var tag = TagPool[random.Next(TagPool.Length)];
                    query = session.Query(Json.User).Where(u => u.Tags.Contains(tag));
                    expected = users.Where(u => u.Tags.Contains(tag));
                    ordered = false;
                    break;
                }

            case 4:
                {
                    var city = Cities[random.Next(Cities.Length)];
                    var age = random.Next(60);
                    query = session.Query(Json.User).Where(u => u.Address!.City == city && u.Age > age).OrderBy(u => u.Age);
                    expected = users.Where(u => u.Address?.City == city && u.Age > age).OrderBy(u => u.Age).ThenBy(u => u.Id, StringComparer.Ordinal);
                    break;
                }

            case 5:
                {
                    var prefix = "users/" + random.Next(10).ToString(System.Globalization.CultureInfo.InvariantCulture);
                    query = session.Query(Json.User).WhereIdStartsWith(prefix);
                    expected = users.Where(u => u.Id!.StartsWith(prefix, StringComparison.Ordinal)).OrderBy(u => u.Id, StringComparer.Ordinal);
                    break;
                }

            case 6:
                {
                    var prefix = "n" + random.Next(10).ToString(System.Globalization.CultureInfo.InvariantCulture);
                    var active = random.Next(2) == 0;
                    query = session.Query(Json.User).Where(u => u.Name.StartsWith(prefix) && u.Active == active).OrderBy(u => u.Name);
                    expected = users.Where(u => u.Name.StartsWith(prefix, StringComparison.Ordinal) && u.Active == active).OrderBy(u => u.Name, StringComparer.Ordinal).ThenBy(u => u.Id, StringComparer.Ordinal);
                    break;
                }

            default:
                {
                    var age = random.Next(60);
                    var count = await session.Query(Json.User).CountAsync(u => u.Age > age);
                    Assert.True(users.Count(u => u.Age > age) == count, $"{context}: count of age > {age}");
                    Assert.Equal(users.Any(u => u.Age > age), await session.Query(Json.User).AnyAsync(u => u.Age > age));
                    Count(stats, "query");
                    return 1;
                }
        }

        var results = new List<User>();
        if (random.Next(2) == 0)
        {
            results = await query.ToListAsync();
        }
        else
        {
            await foreach (var user in query)
            {
                results.Add(user);
            }
        }

        var want = expected.Select(u => u.Id!).ToList();
        var got = results.Select(u => u.Id!).ToList();
        if (!ordered)
        {
            want.Sort(StringComparer.Ordinal);
            got.Sort(StringComparer.Ordinal);
        }

        Assert.True(want.SequenceEqual(got), $"{context}: {query.Explain()}: expected [{string.Join(", ", want)}], got [{string.Join(", ", got)}]");
        foreach (var user in results)
        {
            Assert.True(DocumentModel.Same(user, model.Users[user.Id!].User), $"{context}: query result '{user.Id}' differs from the model");
        }

        Count(stats, "query");
        return 1;
    }
}
