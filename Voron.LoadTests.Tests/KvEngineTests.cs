using System.Buffers.Binary;
using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Measurement;

namespace Voron.LoadTests.Tests;

/// <summary>
/// The <see cref="IKvEngine"/> contract every engine of the <c>kv</c> experiment must keep, run
/// against each engine whose library loads here. An engine whose library does not load has no
/// rows: its <c>*_library_loads_here</c> fact is skipped with the reason instead, so a missing
/// library shows as a skip, never as a pass.
/// </summary>
public sealed class KvEngineTests : IDisposable
{
    private const int Entries = 500;

    private readonly TempDirectory _directory = new();

    public static TheoryData<string> Engines() => [.. KvEngineCatalog.WithSealed.Where(Loads).Select(k => k.Name)];

    /// <summary>Where the LMDB library is missing the theories have no lmdb rows, and this skip says so.</summary>
    [EngineLoadsFact(KvEngineCatalog.Lmdb)]
    public void Lmdb_finds_and_scans_batches_inserted_in_random_order() =>
        Batches_inserted_in_random_order_are_found_and_scanned(KvEngineCatalog.Lmdb);

    [Theory]
    [MemberData(nameof(Engines))]
    public void Batches_inserted_in_random_order_are_found_and_scanned(string name)
    {
        using var engine = Open(name);

        var items = Enumerable.Range(0, Entries).Select(i => KvWrite.Put(Key(i), Value(i))).ToArray();
        new Random(7).Shuffle(items);
        foreach (var batch in items.Chunk(100))
        {
            engine.WriteBatch(batch);
        }

        Assert.Equal(Entries, engine.ScanAll());
        using var reader = engine.OpenReader();
        for (var i = 0; i < Entries; i++)
        {
            Assert.True(reader.TryGet(Key(i), out var length), $"key {i}");
            Assert.Equal(Value(i).Length, length);
        }

        Assert.False(reader.TryGet(Key(Entries), out _));
    }

    [Theory]
    [MemberData(nameof(Engines))]
    public void Two_readers_on_two_threads_read_at_the_same_time(string name)
    {
        using var engine = Open(name);

        engine.WriteBatch([.. Enumerable.Range(0, Entries).Select(i => KvWrite.Put(Key(i), Value(i)))]);

        using var bothOpen = new Barrier(2);
        var found = new int[2];
        var threads = Enumerable.Range(0, 2).Select(t => new Thread(() =>
        {
            using var reader = engine.OpenReader();
            bothOpen.SignalAndWait();
            for (var i = t; i < Entries; i += 2)
            {
                found[t] += reader.TryGet(Key(i), out _) ? 1 : 0;
            }
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());

        Assert.Equal(Entries, found.Sum());
    }

    [Theory]
    [MemberData(nameof(Engines))]
    public void A_reader_keeps_its_snapshot_while_a_later_batch_commits(string name)
    {
        using var engine = Open(name);

        engine.WriteBatch([KvWrite.Put(Key(1), Value(1))]);
        using var reader = engine.OpenReader();
        Assert.True(reader.TryGet(Key(1), out _));

        engine.WriteBatch([KvWrite.Put(Key(2), Value(2))]);

        Assert.False(reader.TryGet(Key(2), out _));
        using var later = engine.OpenReader();
        Assert.True(later.TryGet(Key(2), out _));
        reader.Refresh();
        Assert.True(reader.TryGet(Key(2), out _), "a refreshed reader sees the later commit");
    }

    [Theory]
    [MemberData(nameof(Engines))]
    public void Puts_replace_deletes_remove_and_a_missing_delete_is_no_error(string name)
    {
        using var engine = Open(name);

        engine.WriteBatch([.. Enumerable.Range(0, 10).Select(i => KvWrite.Put(Key(i), Value(i)))]);
        engine.WriteBatch([KvWrite.Put(Key(3), new byte[777]), KvWrite.Delete(Key(4)), KvWrite.Delete(Key(99))]);
        engine.Settle();

        using var reader = engine.OpenReader();
        Assert.True(reader.TryGet(Key(3), out var length));
        Assert.Equal(777, length);
        Assert.False(reader.TryGet(Key(4), out _));
        Assert.Equal(9, engine.ScanAll());
        Assert.Equal(9, reader.WarmUp());
    }

    [Theory]
    [MemberData(nameof(Engines))]
    public void A_scan_starts_at_the_first_key_at_or_after_its_start_and_stops_at_its_count(string name)
    {
        using var engine = Open(name);

        engine.WriteBatch([.. Enumerable.Range(0, 50).Select(i => KvWrite.Put(Key(i * 2), Value(i)))]);

        using var reader = engine.OpenReader();
        Assert.Equal(10, reader.Scan(Key(7), 10));
        Assert.Equal(3, reader.Scan(Key(93), 10)); // 94, 96, 98
        Assert.Equal(0, reader.Scan(Key(1000), 10));
    }

    /// <summary>The engine on a fresh directory, or null when its library does not load here.</summary>
    private IKvEngine Open(string name)
    {
        var kind = KvEngineCatalog.WithSealed.Single(k => k.Name == name);
        var directory = _directory.Combine(name);
        Directory.CreateDirectory(directory);
        return kind.OpenOnDisk(directory);
    }

    internal static bool Loads(KvEngineKind kind)
    {
        try
        {
            kind.Probe();
            return true;
        }
        catch (DllNotFoundException)
        {
            return false;
        }
    }

    private static byte[] Key(int number)
    {
        var key = new byte[8];
        BinaryPrimitives.WriteInt64BigEndian(key, number);
        return key;
    }

    /// <summary>Values of varied lengths; every 97th is larger than the readers' first buffer (1 KiB), so it must grow.</summary>
    private static byte[] Value(int number) => [.. Enumerable.Repeat((byte)number, number % 97 == 0 ? 3000 : 20 + number % 150)];

    public void Dispose() => _directory.Dispose();
}
