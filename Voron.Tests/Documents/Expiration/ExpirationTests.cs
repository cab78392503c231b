using Voron.Documents.Storage;

namespace Voron.Tests.Documents.Expiration;

/// <summary>
/// Expiration's promises one by one: the record field and its rules (DR3, DR9), SetExpiration and
/// the StoreRaw overload, the expiry kept by later saves (XE4), the JSON field (sessions, bulk
/// insert, import) and its bad values, bad options, the sweeper's re-check (XE3), a store of an
/// expired id (XE6) and the unique limit, and the background loop (XE5).
/// </summary>
public sealed class ExpirationTests
{
    private static readonly TestJson Json = TestJson.Default;
    private static readonly DateTimeOffset Start = new(2026, 1, 1, 0, 0, 0, TimeSpan.Zero);

    private static DocumentStore Open(ManualClock clock, Action<DocumentStoreOptions>? tune = null) =>
        DocumentTestStore.InMemory(o =>
        {
            o.TimeProvider = clock;
            o.Expiration.Enabled = false;
            tune?.Invoke(o);
        });

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);

    private static long DocumentCount(DocumentStore store)
    {
        using var read = store.Environment.BeginRead();
        return read.OpenTree(DocumentTrees.Documents)?.Count ?? 0;
    }

    [Fact]
    public void A_record_with_an_expiry_carries_flag_bit_1_and_the_ticks_after_the_collection_name()
    {
        var expires = Start.UtcTicks;
        var record = DocumentRecord.Build("User"u8, """{"a":1}"""u8, 2048, expires);
        Assert.Equal(DocumentRecord.Expires, record[DocumentRecord.FlagsOffset]);
        Assert.Equal(expires, BitConverter.ToInt64(record, DocumentRecord.HeaderSize + 4));
        DocumentRecord.Stamp(record, 1, 1);
        var header = DocumentRecord.ReadHeader(record, "d", "/s");
        Assert.Equal(expires, header.ExpiresTicks);
        Assert.Equal(DocumentRecord.HeaderSize + 4 + 8, header.BodyOffset);
        Assert.Equal("""{"a":1}""", Encoding.UTF8.GetString(record.AsSpan(header.BodyOffset)));

        var compressed = DocumentRecord.Build("User"u8, Utf8("{\"a\":\"" + new string('x', 5000) + "\"}"), 2048, expires);
        DocumentRecord.Stamp(compressed, 1, 1);
        var compressedHeader = DocumentRecord.ReadHeader(compressed, "d", "/s");
        Assert.True(compressedHeader.Compressed);
        Assert.Equal(expires, compressedHeader.ExpiresTicks);
        var json = new byte[compressedHeader.JsonLength];
        DocumentRecord.CopyJson(compressed, compressedHeader, json, "d", "/s");
        Assert.StartsWith("{\"a\":\"xxx", Encoding.UTF8.GetString(json), StringComparison.Ordinal);

        var plain = DocumentRecord.Build("User"u8, """{"a":1}"""u8, 2048);
        Assert.Equal(0, plain[DocumentRecord.FlagsOffset]); // no expiry: the format-1 layout, byte for byte
        Assert.Equal(DocumentRecord.HeaderSize + 4 + 7, plain.Length);
    }

    [Fact]
    public void A_record_breaking_the_expiry_rules_is_refused()
    {
        var record = DocumentRecord.Build("User"u8, """{"a":1}"""u8, 2048, Start.UtcTicks);
        DocumentRecord.Stamp(record, 1, 1);
        BitConverter.GetBytes(0L).CopyTo(record, DocumentRecord.HeaderSize + 4);
        Assert.Contains("DR9", Assert.Throws<CorruptionException>(() => DocumentRecord.ReadHeader(record, "d", "/s")).Message, StringComparison.Ordinal);
        BitConverter.GetBytes(DateTime.MaxValue.Ticks + 1).CopyTo(record, DocumentRecord.HeaderSize + 4);
        Assert.Contains("DR9", Assert.Throws<CorruptionException>(() => DocumentRecord.ReadHeader(record, "d", "/s")).Message, StringComparison.Ordinal);
        Assert.Throws<CorruptionException>(() => DocumentRecord.ReadHeader(record.AsSpan(0, DocumentRecord.HeaderSize + 4 + 6), "d", "/s"));
        record[DocumentRecord.FlagsOffset] = 4; // an unknown bit
        Assert.Contains("DR3", Assert.Throws<CorruptionException>(() => DocumentRecord.ReadHeader(record, "d", "/s")).Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentOutOfRangeException>(() => DocumentRecord.Build("User"u8, """{"a":1}"""u8, 2048, -1));
    }

    [Fact]
    public async Task SetExpiration_writes_an_unchanged_entity_and_later_saves_keep_the_expiry()
    {
        var clock = new ManualClock(Start);
        await using var store = Open(clock);
        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("ada", 30), Json.User, "users/1");
            await session.SaveChangesAsync();
        }

        long version;
        await using (var session = store.OpenSession())
        {
            var user = (await session.LoadAsync("users/1", Json.User))!;
            version = session.GetMetadata(user)!.Version;
            session.SetExpiration(user, Start.AddMinutes(10));
            await session.SaveChangesAsync(); // the JSON did not change; the expiry did
            Assert.True(session.GetMetadata(user)!.Version > version);
            Assert.Equal(Start.AddMinutes(10), session.GetMetadata(user)!.Expires);
            await session.SaveChangesAsync(); // nothing changed since: no write
            version = session.GetMetadata(user)!.Version;
        }

        await using (var session = store.OpenSession())
        {
            var user = (await session.LoadAsync("users/1", Json.User))!;
            Assert.Equal(version, session.GetMetadata(user)!.Version);
            user.Age = 31;
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            using var raw = await session.LoadRawAsync("users/1");
            Assert.Equal(Start.AddMinutes(10), raw!.Metadata.Expires); // XE4: kept by a save that did not set one
            var user = (await session.LoadAsync("users/1", Json.User))!;
            Assert.Equal(31, user.Age);
            session.SetExpiration(user, null);
            await session.SaveChangesAsync();
        }

        clock.Advance(TimeSpan.FromHours(1));
        await using (var session = store.OpenSession())
        {
            Assert.NotNull(await session.LoadAsync("users/1", Json.User)); // the expiry was removed
        }

        Assert.Equal(0, await store.SweepExpiredAsync());
        store.CheckIntegrity();
    }

    [Fact]
    public async Task An_expired_document_is_absent_for_reads_and_for_a_store_of_its_id_but_a_unique_check_meets_it_until_it_is_swept()
    {
        var clock = new ManualClock(Start);
        await using var store = Open(clock);
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_email", u => u.Email).AsUnique());
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("User", "users/1", Utf8("""{"name":"a","email":"a@x","age":1}"""), null, Start.AddMinutes(1));
            await session.SaveChangesAsync();
        }

        clock.Advance(TimeSpan.FromMinutes(1)); // at the expiry: expired
        await using (var session = store.OpenSession())
        {
            Assert.Null(await session.LoadAsync("users/1", Json.User));
            Assert.Null(await session.LoadRawAsync("users/1"));
            Assert.Empty(await session.Query(Json.User).Where(u => u.Email == "a@x").ToListAsync());
        }

        // The limit: another document's unique value still meets the unswept record.
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("User", "users/2", Utf8("""{"name":"c","email":"a@x","age":2}"""));
            await Assert.ThrowsAsync<UniqueConstraintException>(() => session.SaveChangesAsync());
        }

        // XE6: a store of the id meets no document: an expected version of 0 holds, and the old
        // record's index entries go (its unique value is free for users/2 in the same save).
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("User", "users/1", Utf8("""{"name":"b","age":2}"""), expectedVersion: 0);
            session.StoreRaw("User", "users/2", Utf8("""{"name":"c","email":"a@x","age":2}"""));
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            var replaced = await session.LoadAsync("users/1", Json.User);
            Assert.Equal("b", replaced!.Name);
            Assert.Null(session.GetMetadata(replaced)!.Expires);
            Assert.Equal(2, (await session.Query(Json.User).Where(u => u.Age == 2).ToListAsync()).Count);
            Assert.Empty(await session.Query(Json.User).Where(u => u.Age == 1).ToListAsync());
        }

        Assert.Equal(0, await store.SweepExpiredAsync()); // the new users/1 has no expiry
        Assert.Equal(2, store.CheckIntegrity().Documents);
    }

    [Fact]
    public async Task A_store_of_an_expired_id_may_change_its_collection_and_a_stale_expected_version_fails()
    {
        var clock = new ManualClock(Start);
        await using var store = Open(clock);
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
        long version;
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("User", "things/1", Utf8("""{"name":"a","age":5}"""), null, Start.AddMinutes(1));
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            using var stored = await session.LoadRawAsync("things/1");
            version = stored!.Metadata.Version;
        }

        clock.Advance(TimeSpan.FromMinutes(2));
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("User", "things/1", Utf8("""{"name":"b","age":6}"""), expectedVersion: version);
            var stale = await Assert.ThrowsAsync<ConcurrencyException>(() => session.SaveChangesAsync()); // absent: 0, not the hidden version
            Assert.Equal(0, stale.ActualVersion);
        }

        await using (var session = store.OpenSession())
        {
            session.StoreRaw("Other", "things/1", Utf8("""{"name":"c"}"""), expectedVersion: 0);
            await session.SaveChangesAsync();
            Assert.Empty(await session.Query(Json.User).Where(u => u.Age == 5).ToListAsync());
            Assert.Equal(0, await session.QueryRaw("User").AllowScan().CountAsync());
            Assert.Equal(1, await session.QueryRaw("Other").AllowScan().CountAsync());
        }

        Assert.Equal(1, store.CheckIntegrity().Documents);
    }

    [Fact]
    public async Task A_json_field_set_on_an_existing_store_expires_only_documents_stored_again()
    {
        using var directory = new Voron.Testing.TempDirectory();
        var clock = new ManualClock(Start);
        await using (var store = DocumentTestStore.InDirectory(directory.Path, o => o.TimeProvider = clock))
        {
            await store.BulkInsertAsync([new Expiring { Id = "e/1", Name = "a", ExpiresAt = Start.AddMinutes(1) }, new Expiring { Id = "e/2", Name = "b", ExpiresAt = Start.AddMinutes(1) }], ExpiryJson.Default.Expiring);
        }

        clock.Advance(TimeSpan.FromMinutes(2));
        await using (var store = DocumentTestStore.InDirectory(directory.Path, o => { o.TimeProvider = clock; o.Expiration.Enabled = false; o.Expiration.JsonField = "expiresAt"; }))
        {
            // Written before the field was configured: no expiry, and a load and save without changes keeps it so.
            await using (var session = store.OpenSession())
            {
                Assert.NotNull(await session.LoadAsync("e/1", ExpiryJson.Default.Expiring));
                await session.SaveChangesAsync();
            }

            await using (var session = store.OpenSession())
            {
                Assert.Equal(2, await session.QueryRaw("Expiring").AllowScan().CountAsync());
            }

            // The remedy: store them again (a bulk insert of the same documents, or an export then an import).
            await store.BulkInsertAsync([new Expiring { Id = "e/1", Name = "a", ExpiresAt = Start.AddMinutes(1) }], ExpiryJson.Default.Expiring);
            var export = new MemoryStream();
            await store.ExportAsync(export);
            Assert.Equal(1, (await store.ImportAsync(new MemoryStream(export.ToArray()))).Imported); // e/2 (e/1 is hidden, so not exported)
            await using (var session = store.OpenSession())
            {
                Assert.Equal(0, await session.QueryRaw("Expiring").AllowScan().CountAsync());
            }

            Assert.Equal(2, await store.SweepExpiredAsync());
        }
    }

    [Fact]
    public async Task The_json_field_gives_the_expiry_to_sessions_bulk_inserts_and_imports_and_an_explicit_one_wins()
    {
        var clock = new ManualClock(Start);
        await using var store = Open(clock, o => o.Expiration.JsonField = "expiresAt");
        var soon = Start.AddMinutes(5);
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("Expiring", "e/1", Utf8("""{"name":"z","expiresAt":"2026-01-01T00:05:00Z"}"""));
            session.StoreRaw("Expiring", "e/2", Utf8("""{"name":"offset","expiresAt":"2026-01-01T01:05:00+01:00"}""")); // 00:05 UTC
            session.StoreRaw("Expiring", "e/3", Utf8("""{"name":"no offset: UTC","expiresAt":"2026-01-01T00:05:00"}"""));
            session.StoreRaw("Expiring", "e/4", Utf8("""{"name":"null","expiresAt":null}"""));
            session.StoreRaw("Expiring", "e/5", Utf8("""{"name":"missing","nested":{"expiresAt":"2026-01-01T00:00:00Z"}}"""));
            session.Store(new Expiring { Name = "typed", ExpiresAt = soon }, ExpiryJson.Default.Expiring, "e/6");
            var winner = new Expiring { Name = "explicit wins", ExpiresAt = soon };
            session.Store(winner, ExpiryJson.Default.Expiring, "e/7");
            session.SetExpiration(winner, null);
            await session.SaveChangesAsync();
        }

        await store.BulkInsertAsync([new Expiring { Id = "e/8", Name = "bulk", ExpiresAt = soon }, new Expiring { Id = "e/9", Name = "bulk, none" }], ExpiryJson.Default.Expiring);
        var import = Utf8("""{"name":"imported","expiresAt":"2026-01-01T00:05:00Z","@metadata":{"@id":"e/10","@collection":"Expiring"}}""" + "\n");
        Assert.Equal(1, (await store.ImportAsync(new MemoryStream(import))).Imported);

        await using (var session = store.OpenSession())
        {
            foreach (var id in new[] { "e/1", "e/2", "e/3", "e/6", "e/8", "e/10" })
            {
                using var raw = await session.LoadRawAsync(id);
                Assert.True(soon == raw!.Metadata.Expires, id);
            }

            foreach (var id in new[] { "e/4", "e/5", "e/7", "e/9" })
            {
                using var raw = await session.LoadRawAsync(id);
                Assert.True(raw!.Metadata.Expires == null, id);
            }
        }

        clock.Advance(TimeSpan.FromMinutes(5));
        Assert.Equal(6, await store.SweepExpiredAsync());
        Assert.Equal(4, store.CheckIntegrity().Documents);
    }

    [Theory]
    [InlineData("""{"expiresAt":5}""", "a number")]
    [InlineData("""{"expiresAt":"tomorrow"}""", "tomorrow")]
    [InlineData("""{"expiresAt":{"at":"2026-01-01T00:00:00Z"}}""", "an object")]
    [InlineData("""{"expiresAt":true}""", "a boolean")]
    public async Task A_json_field_that_is_not_a_date_time_fails_the_save_naming_the_document_and_the_field(string json, string what)
    {
        await using var store = Open(new ManualClock(Start), o => o.Expiration.JsonField = "expiresAt");
        await using var session = store.OpenSession();
        session.StoreRaw("Expiring", "e/1", Utf8(json));
        var error = await Assert.ThrowsAsync<InvalidJsonException>(() => session.SaveChangesAsync());
        Assert.Equal("e/1", error.Id);
        Assert.Contains("'expiresAt'", error.Message, StringComparison.Ordinal);
        Assert.Contains(what, error.Message, StringComparison.Ordinal);
        Assert.Equal(0, DocumentCount(store));
    }

    [Fact]
    public void Bad_expiration_options_are_refused_naming_the_setting()
    {
        void Refused(Action<ExpirationOptions> tune, string expected)
        {
            var options = new DocumentStoreOptions { InMemory = true };
            tune(options.Expiration);
            Assert.Contains(expected, Assert.Throws<ArgumentException>(options.Validate).Message, StringComparison.Ordinal);
            Assert.Throws<ArgumentException>(() => DocumentStore.Open(options));
        }

        Refused(e => e.SweepInterval = TimeSpan.Zero, "SweepInterval");
        Refused(e => e.SweepInterval = TimeSpan.FromSeconds(-1), "SweepInterval");
        Refused(e => e.SweepInterval = TimeSpan.FromDays(50), "SweepInterval"); // a timer this long throws at every wait
        Refused(e => e.SweepInterval = TimeSpan.FromMilliseconds(uint.MaxValue), "SweepInterval");
        Refused(e => e.BatchSize = 0, "BatchSize");
        Refused(e => e.BatchSize = 10_001, "BatchSize");
        Refused(e => e.JsonField = "", "JsonField");
        Refused(e => e.JsonField = "a.b", "JsonField");
        Refused(e => e.JsonField = " a", "JsonField");
        Refused(e => e.JsonField = "a\n", "JsonField");
        Assert.Throws<ArgumentException>(() => new DocumentStoreOptions { InMemory = true, Expiration = null! }.Validate());
        Assert.Throws<ArgumentException>(() => new DocumentStoreOptions { InMemory = true, TimeProvider = null! }.Validate());
        new DocumentStoreOptions { InMemory = true, Expiration = { BatchSize = 10_000, JsonField = "expires_at", SweepInterval = TimeSpan.FromMilliseconds(1) } }.Validate();
        new DocumentStoreOptions { InMemory = true, Expiration = { SweepInterval = TimeSpan.FromMilliseconds(uint.MaxValue - 1) } }.Validate();
    }

    [Fact]
    public async Task Bad_calls_get_clear_errors()
    {
        await using var store = Open(new ManualClock(Start));
        await using var session = store.OpenSession();
        Assert.Throws<InvalidOperationException>(() => session.SetExpiration(DocumentTestStore.NewUser("x", 1), Start));
        Assert.Throws<ArgumentNullException>(() => session.SetExpiration<User>(null!, Start));
        var user = DocumentTestStore.NewUser("x", 1);
        session.Store(user, Json.User, "users/1");
        Assert.Throws<ArgumentOutOfRangeException>(() => session.SetExpiration(user, DateTimeOffset.MinValue));
        session.Delete(user);
        Assert.Throws<InvalidOperationException>(() => session.SetExpiration(user, Start));
    }

    [Fact]
    public async Task A_sweepers_delete_is_skipped_when_the_document_is_no_longer_expired_at_its_cutoff()
    {
        var clock = new ManualClock(Start);
        await using var store = Open(clock);
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("User", "users/1", Utf8("""{"age":1}"""), null, Start.AddMinutes(10));
            session.StoreRaw("User", "users/2", Utf8("""{"age":2}"""), null, Start.AddMinutes(1));
            session.StoreRaw("User", "users/3", Utf8("""{"age":3}"""));
            await session.SaveChangesAsync();
        }

        // A sweep whose cutoff is 00:05 (it read the expiry tree then): users/1 expires later, users/3 never.
        var cutoff = Start.AddMinutes(5).UtcTicks;
        var writes = new[] { "users/1", "users/2", "users/3", "users/4" }
            .Select(id => WritePort.ExpiredDelete(id, Utf8(id), cutoff))
            .ToList();
        var results = await store.SubmitAsync(writes, CancellationToken.None);
        Assert.Equal([false, true, false, false], results.Select(r => r.Existed));
        Assert.Equal(2, store.CheckIntegrity().Documents);
    }

    [Fact]
    public async Task The_background_sweeper_deletes_expired_documents()
    {
        await using var store = DocumentTestStore.InMemory(o => o.Expiration.SweepInterval = TimeSpan.FromMilliseconds(20));
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
        var past = DateTimeOffset.UtcNow.AddMinutes(-1);
        await using (var session = store.OpenSession())
        {
            for (var i = 0; i < 600; i++)
            {
                session.StoreRaw("User", $"users/{i}", Utf8($$"""{"age":{{i % 7}}}"""), null, i % 3 == 0 ? null : past);
            }

            await session.SaveChangesAsync();
        }

        var guard = DateTime.UtcNow.AddMinutes(2); // a hang guard, not a timing assertion
        while (DocumentCount(store) != 200)
        {
            Assert.True(DateTime.UtcNow < guard, $"the sweeper did not delete the expired documents: {DocumentCount(store)} remain");
            await Task.Delay(20);
        }

        Assert.Equal(200, store.CheckIntegrity().Documents);
        Assert.Null(store.LastSweepFailure);
    }

    [Fact]
    public async Task Saves_complete_while_a_long_sweep_is_in_progress()
    {
        var clock = new ManualClock(Start);
        await using var store = Open(clock, o =>
        {
            o.Expiration.JsonField = "expiresAt";
            o.Expiration.BatchSize = 256;
        });
        const int Count = 20_000;
        await store.BulkInsertAsync(Enumerable.Range(0, Count).Select(i => new Expiring { Id = $"e/{i}", Name = "x", ExpiresAt = Start.AddSeconds(i % 100) }), ExpiryJson.Default.Expiring);
        clock.Advance(TimeSpan.FromHours(1));
        var sweep = store.SweepExpiredAsync();
        var guard = DateTime.UtcNow.AddMinutes(2);
        while (DocumentCount(store) == Count && !sweep.IsCompleted)
        {
            Assert.True(DateTime.UtcNow < guard, "the sweep did not start");
            await Task.Yield();
        }

        var duringSweep = 0;
        for (var i = 0; !sweep.IsCompleted; i++)
        {
            await using var session = store.OpenSession();
            session.StoreRaw("User", $"users/{i}", Utf8("""{"age":1}"""));
            await session.SaveChangesAsync();
            duringSweep += sweep.IsCompleted ? 0 : 1;
        }

        Assert.Equal(Count, await sweep);
        Assert.True(duringSweep > 0, "no save completed while the sweep ran");
        Assert.Equal(DocumentCount(store), store.CheckIntegrity().Documents); // the writers' documents, no expired one
    }
}
