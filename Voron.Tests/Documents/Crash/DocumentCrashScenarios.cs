namespace Voron.Tests.Documents.Crash;

/// <summary>Document workloads to crash at every I/O call.</summary>
internal static class DocumentCrashScenarios
{
    private static readonly TestJson Json = TestJson.Default;

    /// <summary>The indexes the scenarios define (the verifier finishes any build a crash interrupted).</summary>
    public static readonly IndexDefinition[] Indexes =
    [
        IndexDefinition.For(Json.User, "by_email", u => u.Email).AsUnique(),
        IndexDefinition.For(Json.User, "by_tags", u => u.Tags),
        IndexDefinition.For(Json.User, "by_city_age", u => u.Address!.City, u => u.Age),
    ];

    private static User NewUser(string id, int n) => new()
    {
        Id = id,
        Name = $"name{n}",
        Email = $"e{n}@x",
        Age = n % 50,
        Tags = [$"t{n % 3}", $"g{n % 2}"],
        Address = new Address { City = n % 2 == 0 ? "Oslo" : "Lima" },
    };

    /// <summary>
    /// One caller, deterministic: indexes defined, sessions that insert, update, delete and swap
    /// unique values, sessions refused on purpose (a unique violation, a conflict), a large
    /// compressed document, flushes, a process restart (recovery inside the run), and an index built
    /// over existing documents in several transactions.
    /// </summary>
    public static async Task SessionsAsync(DocumentCrashRun run)
    {
        run.Open();
        await run.Store!.EnsureIndexAsync(Indexes[0]);
        await run.Store.EnsureIndexAsync(Indexes[1]);
        await run.SaveAsync(0, session =>
        {
            var changes = new Dictionary<string, string?>();
            for (var i = 1; i <= 5; i++)
            {
                var user = NewUser($"users/{i}", i);
                session.Store(user, Json.User);
                changes[user.Id!] = DocumentCrashRun.Serialize(user);
            }

            return changes;
        });
        await run.SaveAsync(0, session =>
        {
            var user = session.LoadAsync("users/1", Json.User).GetAwaiter().GetResult()!;
            user.Age = 44;
            session.Delete("users/2");
            var added = NewUser("users/6", 6);
            session.Store(added, Json.User);
            return new() { ["users/1"] = DocumentCrashRun.Serialize(user), ["users/2"] = null, ["users/6"] = DocumentCrashRun.Serialize(added) };
        });
        await run.SaveAsync(0, session =>
        {
            var duplicate = NewUser("users/7", 3); // users/3's email
            session.Store(duplicate, Json.User);
            return new() { ["users/7"] = DocumentCrashRun.Serialize(duplicate) };
        }, typeof(UniqueConstraintException));
        await run.SaveAsync(0, session =>
        {
            var stale = NewUser("users/4", 40);
            session.Store(stale, Json.User, expectedVersion: 1);
            return new() { ["users/4"] = DocumentCrashRun.Serialize(stale) };
        }, typeof(ConcurrencyException));
        run.Flush();
        await run.SaveAsync(0, session =>
        {
            var a = session.LoadAsync("users/1", Json.User).GetAwaiter().GetResult()!;
            var b = session.LoadAsync("users/3", Json.User).GetAwaiter().GetResult()!;
            (a.Email, b.Email) = (b.Email, a.Email);
            var big = NewUser("users/big", 9);
            big.Tags = [.. Enumerable.Range(0, 400).Select(i => $"tag-{i % 40}")];
            session.Store(big, Json.User);
            return new() { ["users/1"] = DocumentCrashRun.Serialize(a), ["users/3"] = DocumentCrashRun.Serialize(b), ["users/big"] = DocumentCrashRun.Serialize(big) };
        });
        run.Restart();
        await run.SaveAsync(0, session =>
        {
            session.Delete("users/big");
            var added = NewUser("users/8", 8);
            session.Store(added, Json.User);
            return new() { ["users/big"] = null, ["users/8"] = DocumentCrashRun.Serialize(added) };
        });
        await run.Store!.EnsureIndexAsync(Indexes[2]); // over existing documents, 3 per transaction
        await run.SaveAsync(0, session =>
        {
            var user = session.LoadAsync("users/8", Json.User).GetAwaiter().GetResult()!;
            user.Address = new Address { City = "Pune" };
            var added = NewUser("users/9", 9);
            session.Store(added, Json.User);
            return new() { ["users/8"] = DocumentCrashRun.Serialize(user), ["users/9"] = DocumentCrashRun.Serialize(added) };
        });
        run.Flush();
        await run.SaveAsync(0, session =>
        {
            session.Delete("users/3");
            var user = NewUser("users/10", 1); // takes the email users/3 frees in the same session (e1@x since the swap)
            session.Store(user, Json.User);
            return new() { ["users/3"] = null, ["users/10"] = DocumentCrashRun.Serialize(user) };
        });
    }

    /// <summary>
    /// Three callers save concurrently (merged into shared transactions), each its own ids and
    /// emails, one in four sessions refused on purpose; a flush cuts in. Not deterministic: crash
    /// point k lands near, not on, the same call.
    /// </summary>
    public static async Task ConcurrentSessionsAsync(DocumentCrashRun run)
    {
        run.Open();
        await run.Store!.EnsureIndexAsync(Indexes[0]);
        await run.Store.EnsureIndexAsync(Indexes[2]);
        var callers = Enumerable.Range(0, 3).Select(caller => Task.Run(async () =>
        {
            for (var i = 0; i < 6; i++)
            {
                var refused = i % 4 == 3;
                await run.SaveAsync(caller, session =>
                {
                    var user = NewUser($"c{caller}/{i % 4}", (caller * 100) + i);
                    if (refused)
                    {
                        session.Store(user, Json.User, expectedVersion: 123_456);
                    }
                    else
                    {
                        session.Store(user, Json.User);
                    }

                    var changes = new Dictionary<string, string?> { [user.Id!] = DocumentCrashRun.Serialize(user) };
                    if (i == 4)
                    {
                        session.Delete($"c{caller}/0");
                        changes[$"c{caller}/0"] = null;
                    }

                    return changes;
                }, refused ? typeof(ConcurrencyException) : null);
            }
        })).ToList();
        callers.Add(Task.Run(() =>
        {
            Thread.Sleep(1);
            run.Flush();
        }));
        await Task.WhenAll(callers);
    }
}
