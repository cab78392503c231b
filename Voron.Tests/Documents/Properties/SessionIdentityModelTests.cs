using System.Text.Json;
using System.Text.Json.Nodes;
using Voron.Tests.Documents.Sessions;

namespace Voron.Tests.Documents.Properties;

/// <summary>
/// Model-based test of a session's identity and change tracking (S1-S3 in DocumentSession.cs) and
/// of store-wide generated ids (I5), over raw and typed documents mixed: random sessions of
/// StoreRaw, typed Store (generated or explicit id), typed Load, raw Load, modify (sometimes to
/// the same value), no-op, delete, query and SaveChanges or abandon, against a model of every
/// document's JSON and version, with reopens of the store along the way. Checked after every
/// save: a document the session did not change keeps its exact bytes and version; a changed one
/// has a new version and holds its type's members plus every stored property its type does not
/// declare; loads and queries give entities whose Id is the document's id; a generated id is
/// never one a stored document has or had, whatever its collection. The seed is printed and
/// VORON_SEED replays it.
/// </summary>
public sealed class SessionIdentityModelTests(ITestOutputHelper output)
{
    private static readonly SessionJson Json = SessionJson.Default;
    private static readonly string[] Declared = ["Id", "Name", "Age", "Nickname"];
    private static readonly string[] UnknownValues = ["1", "1.50", "1e3", "-0", "\"s\"", "[1,{\"a\":null}]", "{\"deep\":{\"x\":true}}", "null", "\"\\u00e9\""];

    private sealed record ModelDoc(string Collection, string Json, long Version);

    [Fact]
    public async Task Random_sessions_over_raw_and_typed_documents_match_the_model()
    {
        var seed = TestSeed.Next(output, nameof(Random_sessions_over_raw_and_typed_documents_match_the_model));
        var random = new Random(seed);
        using var directory = new TempDirectory();
        var store = DocumentTestStore.InDirectory(directory.Path);
        var model = new Dictionary<string, ModelDoc>(StringComparer.Ordinal);
        long everGeneratedShapeMax = 0; // the largest n of any id "FdUser/<n>" ever saved, in any collection
        long lastVersion = 0;
        try
        {
            for (var s = 0; s < 300; s++)
            {
                var context = $"seed {seed}, session {s}";
                if (random.Next(25) == 0)
                {
                    await store.DisposeAsync();
                    store = DocumentTestStore.InDirectory(directory.Path);
                }

                var session = new ModelSession(store, model, random, context, everGeneratedShapeMax);
                var saved = await session.RunAsync();
                if (!saved)
                {
                    continue;
                }

                foreach (var (id, expected) in session.Expected)
                {
                    if (expected == null)
                    {
                        model.Remove(id);
                    }
                    else
                    {
                        model[id] = expected;
                    }

                    if (expected != null && TryShape(id, out var n)) // a delete never raises: a stored-then-deleted-unsaved id had no document
                    {
                        everGeneratedShapeMax = Math.Max(everGeneratedShapeMax, n);
                    }
                }

                lastVersion = await CheckAsync(store, model, session, lastVersion, context);
            }
        }
        finally
        {
            await store.DisposeAsync();
        }
    }

    private static bool TryShape(string id, out long n)
    {
        n = 0;
        return id.StartsWith("FdUser/", StringComparison.Ordinal) && long.TryParse(id.AsSpan("FdUser/".Length), out n);
    }

    /// <summary>Reads every document back and compares it with the model; returns the largest version seen.</summary>
    private static async Task<long> CheckAsync(DocumentStore store, Dictionary<string, ModelDoc> model, ModelSession session, long lastVersion, string context)
    {
        var newest = lastVersion;
        await using var reader = store.OpenSession();
        foreach (var (id, doc) in model.ToList())
        {
            using var raw = await reader.LoadRawAsync(id);
            Assert.True(raw != null, $"{context}: '{id}' is missing");
            var json = Encoding.UTF8.GetString(raw.Json.Span);
            Assert.Equal(doc.Collection, raw.Metadata.Collection);
            if (session.Written.Contains(id))
            {
                Assert.True(raw.Metadata.Version > lastVersion, $"{context}: '{id}' was changed but has the old version {raw.Metadata.Version}");
                Assert.True(JsonNode.DeepEquals(JsonNode.Parse(doc.Json), JsonNode.Parse(json)), $"{context}: '{id}' holds {json}, the model {doc.Json}");
                model[id] = doc with { Json = json, Version = raw.Metadata.Version };
            }
            else
            {
                // S1: not changed, not written: the same bytes and version.
                Assert.True(doc.Json == json, $"{context}: '{id}' was not changed but holds {json} instead of {doc.Json}");
                Assert.True(doc.Version == raw.Metadata.Version, $"{context}: '{id}' was not changed but went from version {doc.Version} to {raw.Metadata.Version}");
            }

            newest = Math.Max(newest, raw.Metadata.Version);
        }

        foreach (var id in session.Expected.Where(e => e.Value == null).Select(e => e.Key))
        {
            using var raw = await reader.LoadRawAsync(id);
            Assert.True(raw == null, $"{context}: '{id}' was deleted but is still there");
        }

        var typed = await reader.Query(Json.FdUser).AllowScan().CountAsync();
        Assert.True(model.Values.Count(d => d.Collection == "FdUser") == typed, $"{context}: {typed} FdUser documents, the model has {model.Values.Count(d => d.Collection == "FdUser")}");
        store.CheckIntegrity();
        return newest;
    }

    /// <summary>One random session and what the model expects of each document it touches (null: deleted).</summary>
    private sealed class ModelSession(DocumentStore store, Dictionary<string, ModelDoc> model, Random random, string context, long everGeneratedShapeMax)
    {
        private readonly Dictionary<string, Tracked> _tracked = new(StringComparer.Ordinal);
        private readonly Dictionary<string, ModelDoc?> _raw = new(StringComparer.Ordinal); // raw stores and deletes

        public Dictionary<string, ModelDoc?> Expected { get; } = new(StringComparer.Ordinal);

        /// <summary>The ids whose document the save wrote (a new version).</summary>
        public HashSet<string> Written { get; } = new(StringComparer.Ordinal);

        private sealed class Tracked(FdUser entity, string? loadedJson, string? snapshot)
        {
            public FdUser Entity { get; } = entity;

            /// <summary>The stored JSON when loaded; null when the session stored the entity.</summary>
            public string? LoadedJson { get; } = loadedJson;

            public string? Snapshot { get; } = snapshot;
        }

        private bool Touched(string id) => _tracked.ContainsKey(id) || _raw.ContainsKey(id);

        public async Task<bool> RunAsync()
        {
            await using var session = store.OpenSession();
            if (random.Next(4) == 0)
            {
                await QueryAsync(session);
            }

            var steps = random.Next(1, 7);
            for (var step = 0; step < steps; step++)
            {
                switch (random.Next(8))
                {
                    case 0: StoreRaw(session); break;
                    case 1: StoreTyped(session); break;
                    case 2:
                    case 3: await LoadTypedAsync(session); break;
                    case 4: await LoadRawAsync(session); break;
                    case 5:
                    case 6: Modify(); break;
                    default: Delete(session); break;
                }
            }

            if (random.Next(5) == 0)
            {
                return false; // abandoned: nothing saved
            }

            await session.SaveChangesAsync();
            foreach (var (id, doc) in _raw)
            {
                Expected[id] = doc;
                if (doc != null)
                {
                    Written.Add(id);
                }
            }

            foreach (var (id, tracked) in _tracked)
            {
                var typed = JsonSerializer.Serialize(tracked.Entity, Json.FdUser);
                if (tracked.LoadedJson != null && typed == tracked.Snapshot)
                {
                    continue; // S1: unchanged
                }

                Expected[id] = new ModelDoc("FdUser", tracked.LoadedJson == null ? typed : Merge(typed, tracked.LoadedJson), 0);
                Written.Add(id);
            }

            return true;
        }

        /// <summary>S2: the typed members, then the stored properties FdUser does not declare.</summary>
        private static string Merge(string typed, string stored)
        {
            var result = JsonNode.Parse(typed)!.AsObject();
            foreach (var (name, value) in JsonNode.Parse(stored)!.AsObject())
            {
                if (!Declared.Contains(name, StringComparer.Ordinal))
                {
                    result[name] = value?.DeepClone();
                }
            }

            return result.ToJsonString();
        }

        private string NewId()
        {
            var k = random.Next(1, 60);
            return random.Next(4) switch
            {
                0 => $"Other/{k}",
                1 => $"fduser/{k}", // another case: another id
                _ => $"FdUser/{k}",
            };
        }

        private void StoreRaw(IAsyncDocumentSession session)
        {
            var id = random.Next(3) == 0 && model.Count > 0 ? model.Keys.ElementAt(random.Next(model.Count)) : NewId();
            if (Touched(id))
            {
                return;
            }

            // An existing document keeps its collection (moving it is refused); a new one goes to either.
            var collection = model.TryGetValue(id, out var existing) ? existing.Collection : random.Next(2) == 0 ? "FdUser" : "Other";
            var json = RandomUserJson(id);
            session.StoreRaw(collection, id, Encoding.UTF8.GetBytes(json));
            _raw[id] = new ModelDoc(collection, json, 0);
        }

        private string RandomUserJson(string id)
        {
            var parts = new List<string>();
            if (random.Next(4) != 0)
            {
                parts.Add($"\"Name\":\"n{random.Next(5)}\"");
            }

            if (random.Next(2) == 0)
            {
                parts.Add($"\"Age\":{random.Next(3)}");
            }

            if (random.Next(3) == 0)
            {
                parts.Add(random.Next(2) == 0 ? "\"Nickname\":null" : $"\"Nickname\":\"k{random.Next(3)}\"");
            }

            switch (random.Next(4))
            {
                case 0: parts.Add($"\"Id\":\"{id}\""); break;
                case 1: parts.Add("\"Id\":\"somewhere/else\""); break;
                case 2: parts.Add("\"Id\":null"); break;
            }

            foreach (var name in new[] { "Extra", "name", "More" })
            {
                if (random.Next(3) == 0)
                {
                    parts.Add($"\"{name}\":{UnknownValues[random.Next(UnknownValues.Length)]}");
                }
            }

            var shuffled = parts.OrderBy(_ => random.Next()).ToList();
            var space = random.Next(3) == 0 ? " " : "";
            return "{" + space + string.Join("," + space, shuffled) + space + "}";
        }

        private void StoreTyped(IAsyncDocumentSession session)
        {
            var user = new FdUser { Name = $"t{random.Next(5)}", Age = random.Next(3), Nickname = random.Next(2) == 0 ? null : "nick" };
            if (random.Next(3) == 0)
            {
                var id = NewId();
                if (Touched(id) || (model.TryGetValue(id, out var existing) && existing.Collection != "FdUser"))
                {
                    return;
                }

                session.Store(user, Json.FdUser, id);
                Assert.Equal(id, user.Id);
            }
            else
            {
                session.Store(user, Json.FdUser);
                var id = user.Id!;
                Assert.True(!model.ContainsKey(id) && !Touched(id), $"{context}: generated id '{id}' is one a document has");
                Assert.True(TryShape(id, out var n) && n > everGeneratedShapeMax, $"{context}: generated id '{id}' is not above FdUser/{everGeneratedShapeMax}, an id a document had");
            }

            _tracked[user.Id!] = new Tracked(user, null, null);
        }

        private async Task LoadTypedAsync(IAsyncDocumentSession session)
        {
            var candidates = model.Where(d => d.Value.Collection == "FdUser" && !_raw.ContainsKey(d.Key)).Select(d => d.Key).ToList();
            if (candidates.Count == 0)
            {
                return;
            }

            var id = candidates[random.Next(candidates.Count)];
            var user = await session.LoadAsync(id, Json.FdUser);
            Assert.True(user != null, $"{context}: '{id}' did not load");
            Assert.True(user.Id == id, $"{context}: '{id}' loaded with Id '{user.Id}'"); // S3
            if (_tracked.TryGetValue(id, out var tracked))
            {
                Assert.Same(tracked.Entity, user); // identity map
                return;
            }

            Track(id, user);
        }

        private void Track(string id, FdUser user)
        {
            var stored = JsonNode.Parse(model[id].Json)!.AsObject();
            Assert.True(user.Name == (stored["Name"]?.GetValue<string>() ?? ""), $"{context}: '{id}' loaded Name '{user.Name}' from {model[id].Json}");
            Assert.True(user.Age == (stored["Age"]?.GetValue<int>() ?? 0), $"{context}: '{id}' loaded Age {user.Age} from {model[id].Json}");
            _tracked[id] = new Tracked(user, model[id].Json, JsonSerializer.Serialize(user, Json.FdUser));
        }

        private async Task LoadRawAsync(IAsyncDocumentSession session)
        {
            var candidates = model.Keys.Where(id => !Touched(id)).ToList();
            if (candidates.Count == 0)
            {
                return;
            }

            var id = candidates[random.Next(candidates.Count)];
            using var raw = await session.LoadRawAsync(id);
            Assert.True(raw != null && Encoding.UTF8.GetString(raw.Json.Span) == model[id].Json && raw.Metadata.Version == model[id].Version,
                $"{context}: raw '{id}' does not match the model");
        }

        private async Task QueryAsync(IAsyncDocumentSession session)
        {
            var users = await session.Query(Json.FdUser).AllowScan().ToListAsync();
            var expected = model.Where(d => d.Value.Collection == "FdUser").Select(d => d.Key).Order(StringComparer.Ordinal);
            Assert.Equal(expected, users.Select(u => u.Id!).Order(StringComparer.Ordinal)); // S3: every Id is the document's id
            foreach (var user in users)
            {
                Track(user.Id!, user);
            }
        }

        private void Modify()
        {
            if (_tracked.Count == 0)
            {
                return;
            }

            var user = _tracked.Values.ElementAt(random.Next(_tracked.Count)).Entity;
            switch (random.Next(4))
            {
                case 0: user.Name = $"m{random.Next(3)}"; break;
                case 1: user.Age = random.Next(3); break; // often the same value: no change
                case 2: user.Nickname = random.Next(2) == 0 ? null : "nick"; break;
                default: user.Name = user.Name; break; // assigned, not changed
            }
        }

        private void Delete(IAsyncDocumentSession session)
        {
            if (_tracked.Count > 0 && random.Next(2) == 0)
            {
                var (id, tracked) = _tracked.ElementAt(random.Next(_tracked.Count));
                session.Delete(tracked.Entity);
                _tracked.Remove(id);
                _raw[id] = null;
                return;
            }

            var candidates = model.Keys.Where(id => !Touched(id)).ToList();
            if (candidates.Count > 0)
            {
                var id = candidates[random.Next(candidates.Count)];
                session.Delete(id);
                _raw[id] = null;
            }
        }
    }
}
