using System.Text.Json;
using System.Text.RegularExpressions;
using static Voron.Tests.Documents.ExportImport.ExportImportTestKit;

namespace Voron.Tests.Documents.ExportImport;

public sealed partial class ExportFormatTests
{
    private static readonly TestJson Json = TestJson.Default;

    [GeneratedRegex(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$")]
    private static partial Regex RoundTripUtc();

    [Fact]
    public async Task Each_line_is_the_document_then_its_metadata_in_collection_then_id_order()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.BulkInsertAsync(Enumerable.Range(0, 30).Select(i => new Order { Id = $"orders/{i:D2}", Customer = $"c{i}", Total = i }), Json.Order);
        await store.BulkInsertAsync(Enumerable.Range(0, 20).Select(i => DocumentTestStore.NewUser($"u{i}", i)), Json.User);
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("Empty", "e/1", "{}"u8);
            await session.SaveChangesAsync();
        }

        var lines = await ExportLinesAsync(store);
        Assert.Equal(51, lines.Length);
        var seen = new List<(string Collection, string Id)>();
        await using var check = store.OpenSession();
        foreach (var line in lines)
        {
            using var document = JsonDocument.Parse(line);
            var properties = document.RootElement.EnumerateObject().ToList();
            Assert.Equal("@metadata", properties[^1].Name);
            Assert.Equal(1, properties.Count(p => p.Name == "@metadata"));
            var metadata = properties[^1].Value.EnumerateObject().ToList();
            Assert.Equal(["@id", "@collection", "@version", "@last-modified"], metadata.Select(p => p.Name));
            var id = metadata[0].Value.GetString()!;
            var collection = metadata[1].Value.GetString()!;
            var modified = metadata[3].Value.GetString()!;
            Assert.Matches(RoundTripUtc(), modified);
            using var raw = (await check.LoadRawAsync(id))!;
            Assert.Equal(raw.Metadata.Collection, collection);
            Assert.Equal(raw.Metadata.Version, metadata[2].Value.GetInt64());
            Assert.Equal(raw.Metadata.LastModified, DateTimeOffset.Parse(modified, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind));
            var own = Encoding.UTF8.GetString(raw.Json.Span);
            Assert.StartsWith(own[..^1], line, StringComparison.Ordinal); // the stored JSON, spliced
            seen.Add((collection, id));
        }

        Assert.Equal(["Empty", "User", "orders"], seen.Select(s => s.Collection).Distinct());
        Assert.Equal(seen.OrderBy(s => s.Collection, StringComparer.Ordinal).ThenBy(s => s.Id, StringComparer.Ordinal), seen);
        Assert.StartsWith("{\"@metadata\":{\"@id\":\"e/1\"", lines[0], StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_collection_option_exports_one_collection_and_the_result_names_the_snapshot()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.BulkInsertAsync(Enumerable.Range(0, 10).Select(i => new Order { Id = $"orders/{i}", Customer = "c" }), Json.Order);
        await store.BulkInsertAsync(Enumerable.Range(0, 5).Select(i => DocumentTestStore.NewUser($"u{i}", i)), Json.User);
        var lines = await ExportLinesAsync(store, new DocumentExportOptions { Collection = "User" });
        Assert.Equal(5, lines.Length);
        Assert.All(lines, l => Assert.Contains("\"@collection\":\"User\"", l, StringComparison.Ordinal));
        Assert.Empty(await ExportLinesAsync(store, new DocumentExportOptions { Collection = "Nothing" }));
        var result = await store.ExportAsync(Stream.Null);
        Assert.Equal(store.Environment.LastCommittedTransactionId, result.TransactionId);
        Assert.Equal(15, result.Documents);
        await Assert.ThrowsAsync<ArgumentException>(() => store.ExportAsync(Stream.Null, new DocumentExportOptions { Collection = "a/b" }));
    }

    [Fact]
    public async Task A_stored_metadata_property_is_replaced_and_line_breaks_are_minified_away()
    {
        await using var store = DocumentTestStore.InMemory();
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("Raw", "raw/1", "{\n  \"a\": [1, 2],\r\n  \"@metadata\": {\"@id\": \"other\"},\n  \"s\": \"x\\ny \\\"q\\\"\"\n}\n"u8);
            session.StoreRaw("Raw", "raw/2", "{\"\\u0040metadata\":1}"u8);
            session.StoreRaw("Raw", "raw/3", "{\"at\":\"@metadata\",\"@other\":2}"u8);
            session.StoreRaw("Raw", "raw/\"4\"\\", "{ }"u8);
            await session.SaveChangesAsync();
        }

        var lines = await ExportLinesAsync(store); // '"' sorts before '1'
        Assert.StartsWith("{\"a\":[1,2],\"s\":\"x\\ny \\\"q\\\"\",\"@metadata\":{\"@id\":\"raw/1\",", lines[1], StringComparison.Ordinal);
        Assert.StartsWith("{\"@metadata\":{\"@id\":\"raw/2\",", lines[2], StringComparison.Ordinal);
        Assert.StartsWith("{\"at\":\"@metadata\",\"@other\":2,\"@metadata\":{\"@id\":\"raw/3\",", lines[3], StringComparison.Ordinal);
        Assert.StartsWith("{ \"@metadata\":{\"@id\":\"raw/\\\"4\\\"\\\\\",", lines[0], StringComparison.Ordinal);
        foreach (var line in lines)
        {
            using var document = JsonDocument.Parse(line);
            Assert.Single(document.RootElement.EnumerateObject(), p => p.Name == "@metadata");
        }
    }

    [Fact]
    public async Task Progress_is_monotone_and_ends_at_the_total_and_cancellation_stops_between_documents()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.BulkInsertAsync(Enumerable.Range(0, 25_000).Select(i => new Order { Id = $"orders/{i}", Customer = "c" }), Json.Order);
        var progress = new Recorder();
        await store.ExportAsync(Stream.Null, new DocumentExportOptions { Progress = progress });
        Assert.Equal([10_000, 20_000, 25_000], progress.Reports);
        var even = new Recorder();
        await store.ExportAsync(Stream.Null, new DocumentExportOptions { Progress = even, Collection = "Nothing" });
        Assert.Equal([0], even.Reports);

        using var cancel = new CancellationTokenSource();
        var stopping = new Recorder(n => cancel.Cancel());
        using var partial = new MemoryStream();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => store.ExportAsync(partial, new DocumentExportOptions { Progress = stopping }, cancel.Token));
        Assert.Equal([10_000], stopping.Reports);
        var written = Encoding.UTF8.GetString(partial.ToArray());
        Assert.True(written.Count(c => c == '\n') <= 10_000, "nothing past the cancellation point");
    }
}
