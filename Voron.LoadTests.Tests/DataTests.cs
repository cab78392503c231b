using Voron.LoadTests.Data;

namespace Voron.LoadTests.Tests;

/// <summary>The generated data of Voron.LoadTests (Data/): in range, deterministic, shaped as described.</summary>
public sealed class DataTests
{
    [Fact]
    public void Zipfian_draws_stay_in_range_and_favour_the_first_items()
    {
        var zipf = new Zipfian(1000);
        var random = new Random(1);
        var counts = new int[1000];
        for (var i = 0; i < 100_000; i++)
        {
            counts[zipf.Next(random)]++;
        }

        Assert.True(counts[0] > counts[10] && counts[10] > counts[500], $"{counts[0]}, {counts[10]}, {counts[500]}");
        Assert.True(counts[0] > 5_000, $"item 0 drawn {counts[0]} times in 100,000");
    }

    [Fact]
    public void Scrambled_zipfian_spreads_the_popular_items_over_the_range()
    {
        var zipf = new Zipfian(1000, scrambled: true);
        var random = new Random(1);
        var counts = new int[1000];
        for (var i = 0; i < 100_000; i++)
        {
            counts[zipf.Next(random)]++;
        }

        var hottest = Array.IndexOf(counts, counts.Max());
        Assert.NotEqual(0, hottest);
        Assert.True(counts.Max() > 5_000);
    }

    [Fact]
    public void Realistic_documents_are_valid_json_within_their_size_range_and_deterministic()
    {
        var first = new RealisticJson(42);
        var again = new RealisticJson(42);
        var documents = Enumerable.Range(0, 300).Select(_ => first.Next(512, 4096)).ToList();

        Assert.Equal(documents, Enumerable.Range(0, 300).Select(_ => again.Next(512, 4096)));
        Assert.All(documents, d => JsonDocument.Parse(d).Dispose());
        Assert.All(documents, d => Assert.InRange(d.Length, 300, 4096 + 400));
        Assert.True(documents.Average(d => d.Length) is > 1500 and < 3000, $"mean {documents.Average(d => d.Length)} bytes");
        Assert.True(documents.Distinct(new BytesComparer()).Count() == documents.Count, "no two documents alike");
        Assert.Contains(documents, d => d.AsSpan().IndexOf("\"history\""u8) >= 0);
        Assert.Contains(documents, d => d.AsSpan().IndexOf("\"lines\""u8) >= 0);
        Assert.Contains(documents, d => d.AsSpan().IndexOf("\"spans\""u8) >= 0);
    }

    [Fact]
    public void An_updated_document_is_valid_json_with_a_new_version()
    {
        var documents = new RealisticJson(7);
        var document = documents.Next(1024, 2048);

        var updated = documents.Update(document, 4096);

        using var before = JsonDocument.Parse(document);
        using var after = JsonDocument.Parse(updated);
        Assert.Equal(before.RootElement.GetProperty("id").GetString(), after.RootElement.GetProperty("id").GetString());
        Assert.Equal(before.RootElement.GetProperty("version").GetInt32() + 1, after.RootElement.GetProperty("version").GetInt32());
        Assert.NotEqual(document, updated);
    }

    [Fact]
    public void Key_patterns_give_distinct_keys_sequential_ones_in_order()
    {
        var sequential = Enumerable.Range(0, 100).Select(i => KeyPattern.Sequential.Key(3, i)).ToList();
        var random = Enumerable.Range(0, 100).SelectMany(w => Enumerable.Range(0, 10).Select(i => KeyPattern.Random.Key(w, i))).ToList();

        Assert.Equal(sequential, sequential.Order(new BytesComparer()));
        Assert.Equal(random.Count, random.Distinct(new BytesComparer()).Count());
        Assert.NotEqual(random, random.Order(new BytesComparer()));
        Assert.Equal(KeyPattern.Random.Key(5, 5), KeyPattern.Random.Key(5, 5));
    }

    [Fact]
    public void Ycsb_workloads_have_their_mix_and_inserts_take_new_records()
    {
        var a = YcsbWorkload.Create(YcsbWorkload.A, 10_000, 1000, 1000, 1);
        var b = YcsbWorkload.Create(YcsbWorkload.B, 10_000, 1000, 1000, 1);
        var e = YcsbWorkload.Create(YcsbWorkload.E, 10_000, 1000, 1000, 1);

        Assert.InRange(a.Operations.Count(o => o.Kind == YcsbKind.Update), 4_500, 5_500);
        Assert.InRange(b.Operations.Count(o => o.Kind == YcsbKind.Update), 300, 700);
        Assert.All(a.Operations.Concat(b.Operations), o => Assert.InRange(o.Record, 0, 999));
        var inserts = e.Operations.Where(o => o.Kind == YcsbKind.Insert).Select(o => o.Record).ToList();
        Assert.InRange(inserts.Count, 300, 700);
        Assert.Equal(Enumerable.Range(1000, inserts.Count).Select(i => (long)i), inserts);
        Assert.All(e.Operations.Where(o => o.Kind == YcsbKind.Scan), o => Assert.InRange(o.ScanLength, 1, YcsbWorkload.MaxScanLength));
    }

    private sealed class BytesComparer : IEqualityComparer<byte[]>, IComparer<byte[]>
    {
        public bool Equals(byte[]? x, byte[]? y) => x.AsSpan().SequenceEqual(y);

        public int GetHashCode(byte[] obj) => obj.Length == 0 ? 0 : HashCode.Combine(obj.Length, obj[0], obj[^1], obj[obj.Length / 2]);

        public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
    }
}
