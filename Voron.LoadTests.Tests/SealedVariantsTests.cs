using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Documents;
using Voron.LoadTests.Capabilities.Orders;

namespace Voron.LoadTests.Tests;

/// <summary>
/// The sealed variants of <c>kv</c>, <c>documents</c> and <c>compare</c> (encryption at rest):
/// each opens a sealed store (its header names the AEAD, read by <see cref="StorageEnvironment.Inspect"/>
/// without the key) where its twin opens an unsealed one; <c>--encrypt</c> runs each beside its
/// twin; the reports give sealed ÷ unsealed with the targets' verdicts and say why SQLCipher is not
/// beside them. Shapes and verdict words only: no figure is judged.
/// </summary>
public sealed class SealedVariantsTests : IDisposable
{
    private static readonly string[] Verdicts = ["pass", "miss"];
    private static readonly OrdersSize Tiny = new(50, 10, 200);

    private readonly TempDirectory _directory = new();

    [Fact]
    public void Voron_sealed_opens_a_sealed_store_and_voron_an_unsealed_one()
    {
        foreach (var (name, isSealed) in new[] { (KvEngineCatalog.VoronSealed, true), (KvEngineCatalog.Voron, false) })
        {
            var kind = KvEngineCatalog.WithSealed.Single(k => k.Name == name);
            var directory = NewDirectory(name);
            using (var engine = kind.OpenOnDisk(directory))
            {
                engine.WriteBatch([KvWrite.Put([1, 2, 3], [4, 5, 6])]);
                Assert.Equal(name, engine.Name);
            }

            AssertSealed(directory, isSealed);
            Assert.Equal(isSealed ? KvEngineCatalog.Voron : null, kind.UnsealedTwin);
        }
    }

    [Fact]
    public async Task The_sealed_document_engine_opens_a_sealed_store_and_says_so_in_its_durability()
    {
        var kind = DocumentEngineCatalog.WithSealed.Single(k => k.Name == DocumentEngineCatalog.VoronSealed);
        var directory = NewDirectory(kind.Name);
        using (var engine = await kind.OpenAsync(directory))
        {
            Assert.Equal(DocumentEngineCatalog.VoronSealed, engine.Name);
            Assert.Contains("SealingKey", engine.Durability, StringComparison.Ordinal);
            using var caller = engine.CreateCaller();
            Assert.Equal(10, await engine.BulkInsertAsync(Enumerable.Range(0, 10).Select(i => Experiments.Documents.ProfileDataSet.Create(i))));
            Assert.NotNull(await caller.LoadAsync(Experiments.Documents.ProfileDataSet.Id(3)));
        }

        AssertSealed(directory, isSealed: true);
        Assert.Equal(DocumentEngineCatalog.Voron, kind.UnsealedTwin);
    }

    public static TheoryData<string> SealedPaths => [.. OrderPaths.Kinds.Where(k => k.UnsealedTwin != null).Select(k => k.Name)];

    [Theory]
    [MemberData(nameof(SealedPaths))]
    public async Task A_sealed_order_path_opens_a_sealed_store_beside_its_twin(string name)
    {
        var twin = OrderPaths.Kinds.Single(k => k.Name == name).UnsealedTwin!;
        foreach (var (path, isSealed) in new[] { (name, true), (twin, false) })
        {
            var directory = NewDirectory(path);
            using (var opened = await OrderPaths.OpenAsync(path, directory, Tiny))
            {
                Assert.Equal(path, opened.Name);
                Assert.Equal(isSealed, opened.Durability.Contains("SealingKey", StringComparison.Ordinal));
            }

            AssertSealed(directory, isSealed);
        }
    }

    [Fact]
    public void Encrypt_adds_each_sealed_twin_after_its_engine_and_the_defaults_leave_them_out()
    {
        Assert.DoesNotContain(KvEngineCatalog.All, k => k.UnsealedTwin != null);
        Assert.DoesNotContain(DocumentEngineCatalog.All, k => k.UnsealedTwin != null);
        Assert.DoesNotContain(OrderPaths.All, p => p.EndsWith("-sealed", StringComparison.Ordinal));

        var compare = ExperimentCatalog.All.Single(d => d.Name == "compare");
        Assert.Equal(["documents", "documents-sealed", "sql-voron", "sql-voron-sealed", "sqlite"],
            Assert.IsType<CompareExperiment>(compare.Create(CommandLine.Parse(["compare", "--paths", "sqlite,documents,sql-voron", "--encrypt"]))).PathNames);
        Assert.Equal(OrderPaths.All, Assert.IsType<CompareExperiment>(compare.Create(CommandLine.Parse(["compare"]))).PathNames);
        Assert.Equal(["sql-docs-sealed"], Assert.IsType<CompareExperiment>(compare.Create(CommandLine.Parse(["compare", "--paths", "sql-docs-sealed"]))).PathNames);

        var documents = ExperimentCatalog.All.Single(d => d.Name == "documents");
        Assert.Equal(["voron", "voron-sealed", "sqlite"],
            SuiteParts.Part<DocumentsExperiment>(documents.Create(CommandLine.Parse(["documents", "--engines", "voron,sqlite", "--encrypt"]))).EngineNames);

        Assert.Empty(CommandLine.Parse(["kv", "--engines", "voron,voron-sealed"]).Errors);
        Assert.Empty(CommandLine.Parse(["kv", "--encrypt"]).Errors);
        Assert.NotEmpty(CommandLine.Parse(["ycsb", "--engines", "voron-sealed"]).Errors); // ycsb and churn have no sealed variant
        Assert.Equal(["voron", "voron-sealed", "lmdb"],
            SealedTwins.InOrder(KvEngineCatalog.WithSealed.Select(k => (k.Name, k.UnsealedTwin)), ["lmdb", "voron"], encrypt: true));
    }

    [Fact]
    public async Task Kv_with_encrypt_gives_every_sealed_row_its_ratio_to_voron_and_a_verdict()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("kv"));

        var report = await new KvExperiment(entryCount: 2_000, runs: 1, engines: [KvEngineCatalog.Voron], encrypt: true).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(
            KvExperiment.Workloads.SelectMany(w => new[] { (KvEngineCatalog.Voron, w), (KvEngineCatalog.VoronSealed, w) }),
            rows.Select(r => (r.GetProperty("engine").GetString()!, r.GetProperty("workload").GetString()!)));
        foreach (var row in rows.Where(r => r.GetProperty("engine").GetString() == KvEngineCatalog.VoronSealed))
        {
            var workload = row.GetProperty("workload").GetString()!;
            var unsealed = rows.Single(r => r.GetProperty("engine").GetString() == KvEngineCatalog.Voron && r.GetProperty("workload").GetString() == workload);
            Assert.Equal(KvEngineCatalog.Voron, row.GetProperty("unsealed").GetString());
            Assert.Equal(unsealed.GetProperty("opsPerSec").GetDouble(), row.GetProperty("unsealedOpsPerSec").GetDouble(), tolerance: 0.001); // the report rounds to 4 places
            Assert.Equal(row.GetProperty("opsPerSec").GetDouble() / row.GetProperty("unsealedOpsPerSec").GetDouble(), row.GetProperty("vsUnsealed").GetDouble(), tolerance: 0.001); // the report rounds to 4 places
            Assert.Equal(KvExperiment.WriteWorkloads.Contains(workload) ? "vsUnsealed >= 0.85" : "vsUnsealed >= 0.8", row.GetProperty("sealedTarget").GetString());
            Assert.Contains(row.GetProperty("sealedMet").GetString(), Verdicts);
            Assert.False(unsealed.TryGetProperty("sealedMet", out var none) && none.ValueKind != JsonValueKind.Null);
        }

        var root = json.RootElement;
        Assert.Equal(KvExperiment.Workloads.Length, root.GetProperty("sealedTargetsPassed").GetInt32() + root.GetProperty("sealedTargetsMissed").GetInt32());
        Assert.Contains("SealingKey", root.GetProperty("voron-sealedSettings").GetString(), StringComparison.Ordinal);
        Assert.Contains(report.Notes, n => n.StartsWith("Encryption at rest", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Documents_with_encrypt_gives_every_sealed_row_its_ratio_to_voron_and_a_verdict()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("documents"));

        var report = await new DocumentsExperiment(documents: 1000, duration: TimeSpan.FromMilliseconds(30), warmUp: false,
            engines: ["voron"], workloads: ["load", "insert"], insertCallers: [4], encrypt: true).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(
            [("voron", "load", 1), ("voron-sealed", "load", 1), ("voron", "load", 2), ("voron-sealed", "load", 2), ("voron", "insert", 4), ("voron-sealed", "insert", 4)],
            rows.Select(r => (r.GetProperty("engine").GetString()!, r.GetProperty("workload").GetString()!, r.GetProperty("callers").GetInt32())));
        foreach (var row in rows.Where(r => r.GetProperty("engine").GetString() == "voron-sealed"))
        {
            Assert.Equal("voron", row.GetProperty("unsealed").GetString());
            Assert.True(row.GetProperty("vsUnsealed").GetDouble() > 0);
            Assert.Equal(row.GetProperty("workload").GetString() == "load" ? "vsUnsealed >= 0.8" : "vsUnsealed >= 0.85", row.GetProperty("sealedTarget").GetString());
            Assert.Contains(row.GetProperty("sealedMet").GetString(), Verdicts);
        }

        Assert.Contains("SealingKey", json.RootElement.GetProperty("durability.voron-sealed").GetString(), StringComparison.Ordinal);
        Assert.Equal(3, json.RootElement.GetProperty("sealedTargetsPassed").GetInt32() + json.RootElement.GetProperty("sealedTargetsMissed").GetInt32());
    }

    [Fact]
    public async Task Compare_with_encrypt_has_the_sealed_table_and_says_why_SQLCipher_is_not_run()
    {
        using var output = new StringWriter();
        var reports = _directory.Combine("reports");

        var exit = await CommandLine.RunAsync(
            ["compare", "--quick", "--duration", "0.2", "--runs", "1", "--copies", "1,2", "--loops", "closed", "--paths", "documents,sql-voron", "--encrypt",
             "--dir", _directory.Combine("compare"), "--reports", reports], output);

        Assert.True(exit == 0, output.ToString());
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(reports, "compare.json")));
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        foreach (var (path, twin) in new[] { ("documents-sealed", "documents"), ("sql-voron-sealed", "sql-voron") })
        {
            Assert.Contains("SealingKey", json.RootElement.GetProperty($"durability.{path}").GetString(), StringComparison.Ordinal);
            var sealedRows = rows.Where(r => Text(r, "table") == CompareExperiment.SealedTable && Text(r, "path") == path).ToList();
            Assert.Equal(["closed 1: ops/s", "closed 2: ops/s"], sealedRows.Select(r => Text(r, "measure")));
            Assert.All(sealedRows, r =>
            {
                Assert.Equal(twin, Text(r, "unsealed"));
                Assert.Equal(r.GetProperty("opsPerSec").GetDouble() / r.GetProperty("unsealedOpsPerSec").GetDouble(), r.GetProperty("vsUnsealed").GetDouble(), tolerance: 0.001); // the report rounds to 4 places
                Assert.Equal("vsUnsealed >= 0.85", Text(r, "sealedTarget"));
                Assert.Contains(Text(r, "sealedMet"), Verdicts);
            });
        }

        var peer = Assert.Single(rows, r => Text(r, "table") == CompareExperiment.PeersNotRunTable);
        Assert.Equal("SQLCipher (SQLitePCLRaw.bundle_e_sqlcipher)", Text(peer, "path"));
        Assert.Contains("not in this machine's package registry copy", Text(peer, "why"), StringComparison.Ordinal);
        var markdown = await File.ReadAllTextAsync(Path.Combine(reports, "compare.md"));
        Assert.Contains("## table: sealed ÷ unsealed", markdown, StringComparison.Ordinal);
        Assert.Contains("SQLCipher (SQLitePCLRaw.bundle_e_sqlcipher)", markdown, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Compare_without_sealed_paths_has_no_sealed_table_and_no_peer_note()
    {
        using var output = new StringWriter();
        var reports = _directory.Combine("plain-reports");

        var exit = await CommandLine.RunAsync(
            ["compare", "--quick", "--duration", "0.1", "--runs", "1", "--copies", "1", "--loops", "closed", "--paths", "documents",
             "--dir", _directory.Combine("plain"), "--reports", reports], output);

        Assert.True(exit == 0, output.ToString());
        var markdown = await File.ReadAllTextAsync(Path.Combine(reports, "compare.md"));
        Assert.DoesNotContain("sealed", markdown, StringComparison.Ordinal);
        Assert.DoesNotContain("SQLCipher", markdown, StringComparison.Ordinal);
    }

    private string NewDirectory(string name)
    {
        var directory = _directory.Combine(name);
        Directory.CreateDirectory(directory);
        return directory;
    }

    /// <summary>The store's newest header names an AEAD exactly when it is sealed (read without the key).</summary>
    private static void AssertSealed(string directory, bool isSealed)
    {
        var info = StorageEnvironment.Inspect(directory);
        if (isSealed)
        {
            Assert.False(string.IsNullOrEmpty(info.SealAlgorithm), $"{directory}: the header names no seal algorithm");
        }
        else
        {
            Assert.Null(info.SealAlgorithm);
        }
    }

    private static string Text(JsonElement row, string column) =>
        row.TryGetProperty(column, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString()! : "";

    public void Dispose() => _directory.Dispose();
}
