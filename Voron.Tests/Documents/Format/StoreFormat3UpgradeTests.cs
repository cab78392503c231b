using Voron.Documents.Indexing;

namespace Voron.Tests.Documents.Format;

/// <summary>
/// Store format 3 (Storage/DocumentTrees.cs): index entries read a repeated member's first
/// occurrence. A format-2 store, whose entries read the last, is upgraded at open: the entries of
/// the documents where the two readings differ are rewritten, and nothing else.
/// </summary>
public sealed class StoreFormat3UpgradeTests
{
    private static byte[] Key(string id, params object[] values)
    {
        var key = new KeyBuilder();
        foreach (var value in values)
        {
            switch (value)
            {
                case long n:
                    IndexKey.EncodeInteger(n, key);
                    break;
                case null:
                    key.Append(IndexKey.Null);
                    break;
                default:
                    IndexKey.EncodeString(Encoding.UTF8.GetBytes((string)value), key);
                    break;
            }
        }

        key.Append(Encoding.UTF8.GetBytes(id));
        return key.ToArray();
    }

    private static List<string> Keys(StorageEnvironment environment, string tree)
    {
        using var read = environment.BeginRead();
        var iterator = read.OpenTree(tree)!.Iterate();
        var keys = new List<string>();
        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            keys.Add(Convert.ToHexString(iterator.Key));
        }

        return keys;
    }

    [Fact]
    public async Task A_format_2_store_is_upgraded_at_open_and_repeated_members_are_indexed_by_their_first_occurrence()
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var store = DocumentStore.Open(environment))
        {
            await store.EnsureIndexAsync(new IndexDefinition("r", "ByA", "a"));
            await store.EnsureIndexAsync(new IndexDefinition("r", "ByNxA", "n.x", "a"));
            await store.EnsureIndexAsync(new IndexDefinition("r", "ByB", "b").AsUnique());
            await using var session = store.OpenSession();
            session.StoreRaw("r", "r/1", """{"a":1,"a":3,"n":{"x":"p"},"n":{"x":"q"},"b":"u","b":"v"}"""u8);
            session.StoreRaw("r", "r/2", """{"a":2,"a":2,"b":"w"}"""u8);
            session.StoreRaw("r", "r/3", """{"a":4}"""u8);
            session.StoreRaw("o", "o/1", """{"a":1,"a":9}"""u8); // a collection without indexes
            await session.SaveChangesAsync();
        }

        var upgraded = (ByA: Keys(environment, "@docs.idx/r/ByA"), ByNxA: Keys(environment, "@docs.idx/r/ByNxA"), ByB: Keys(environment, "@docs.idx/r/ByB"));

        // What format 2 wrote: the last occurrence's values, and "format" 2.
        await environment.ExecuteAsync(tx =>
        {
            var byA = tx.OpenTree("@docs.idx/r/ByA")!;
            Assert.True(byA.Delete(Key("r/1", 1L)));
            byA.Put(Key("r/1", 3L), []);
            var byNxA = tx.OpenTree("@docs.idx/r/ByNxA")!;
            Assert.True(byNxA.Delete(Key("r/1", "p", 1L)));
            byNxA.Put(Key("r/1", "q", 3L), []);
            var byB = tx.OpenTree("@docs.idx/r/ByB")!;
            Assert.True(byB.Delete(Key("r/1", "u")));
            byB.Put(Key("r/1", "v"), []);
            tx.CreateTree("@docs.meta").Put("format"u8, [2, 0, 0, 0]);
        });
        Assert.NotEqual(upgraded.ByA, Keys(environment, "@docs.idx/r/ByA"));

        using (var store = DocumentStore.Open(environment))
        {
            using (var read = environment.BeginRead())
            {
                Assert.Equal([3, 0, 0, 0], read.OpenTree("@docs.meta")!.Get("format"u8));
            }

            Assert.Equal(upgraded.ByA, Keys(environment, "@docs.idx/r/ByA"));
            Assert.Equal(upgraded.ByNxA, Keys(environment, "@docs.idx/r/ByNxA"));
            Assert.Equal(upgraded.ByB, Keys(environment, "@docs.idx/r/ByB"));
            store.CheckIntegrity();
            await using var session = store.OpenSession();
            var ones = await session.QueryRaw("r").Where("a", QueryOperator.Equal, 1L).ToListAsync();
            Assert.Equal(["r/1"], ones.Select(d => d.Id));
            ones.ForEach(d => d.Dispose());
            session.StoreRaw("r", "r/4", """{"b":"v"}"""u8); // the unique value r/1's first occurrence no longer holds
            await session.SaveChangesAsync();
        }
    }

    [Fact]
    public async Task The_upgrade_refuses_a_store_where_a_first_occurrence_breaks_a_unique_index_and_says_what_to_do()
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var store = DocumentStore.Open(environment))
        {
            await store.EnsureIndexAsync(new IndexDefinition("r", "ByB", "b").AsUnique());
            await using var session = store.OpenSession();
            session.StoreRaw("r", "r/1", """{"b":"u"}"""u8);
            session.StoreRaw("r", "r/2", """{"b":"w","b":"w"}"""u8);
            await session.SaveChangesAsync();
        }

        // What format 2 could hold: r/2 is {"b":"u","b":"w"}, indexed by its last "w"; its first
        // occurrence is r/1's unique value.
        await environment.ExecuteAsync(tx =>
        {
            var docs = tx.OpenTree("@docs")!;
            var record = docs.Get("r/2"u8)!.ToArray();
            var json = """{"b":"w","b":"w"}"""u8.ToArray();
            var at = record.AsSpan().IndexOf(json);
            Assert.True(at > 0, "the test expects the record to hold the JSON plain");
            """{"b":"u","b":"w"}"""u8.CopyTo(record.AsSpan(at));
            docs.Put("r/2"u8, record);
            tx.CreateTree("@docs.meta").Put("format"u8, [2, 0, 0, 0]);
        });

        var error = Assert.ThrowsAny<Exception>(() => DocumentStore.Open(environment));
        Assert.Contains("r/2", error.Message, StringComparison.Ordinal);
        Assert.Contains("ByB", error.Message, StringComparison.Ordinal);
        using var read = environment.BeginRead();
        Assert.Equal([2, 0, 0, 0], read.OpenTree("@docs.meta")!.Get("format"u8)); // nothing written: the upgrade is one transaction
    }
}
