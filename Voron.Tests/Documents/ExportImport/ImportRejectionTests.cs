using static Voron.Tests.Documents.ExportImport.ExportImportTestKit;

namespace Voron.Tests.Documents.ExportImport;

public sealed class ImportRejectionTests
{
    private static readonly TestJson Json = TestJson.Default;

    private static string Line(string id, string body = "\"customer\":\"c\"") =>
        $"{{{body},\"@metadata\":{{\"@id\":\"{id}\",\"@collection\":\"orders\",\"@version\":7}}}}";

    [Fact]
    public async Task Each_kind_of_bad_line_is_refused_with_its_line_number_and_the_rest_is_imported()
    {
        await using var store = DocumentTestStore.InMemory(o => o.MaxDocumentBytes = 1024);
        var lines = new (string Text, string? Reason)[]
        {
            (Line("orders/1"), null),
            ("not json", "not a JSON object"),
            ("[1,2]", "not a JSON object"),
            ("{\"a\":1,}", "not a JSON object"),
            ("{\"a\":\"\\ud800\",\"@metadata\":{\"@id\":\"x\",\"@collection\":\"orders\"}}", "not a JSON object"),
            ("{\"a\":1}", "no \"@metadata\" property"),
            ("{\"@metadata\":{\"@id\":\"x\",\"@collection\":\"orders\"},\"@metadata\":{\"@id\":\"y\",\"@collection\":\"orders\"}}", "more than one \"@metadata\" property"),
            ("{\"@metadata\":[]}", "\"@metadata\" is not an object"),
            ("{\"@metadata\":{\"@collection\":\"orders\"}}", "no \"@metadata\".\"@id\""),
            ("{\"@metadata\":{\"@id\":5,\"@collection\":\"orders\"}}", "\"@metadata\".\"@id\" is not a string"),
            ("{\"@metadata\":{\"@id\":\"a\",\"@id\":\"b\",\"@collection\":\"orders\"}}", "more than one \"@metadata\".\"@id\""),
            ("{\"@metadata\":{\"@id\":\"x\"}}", "no \"@metadata\".\"@collection\""),
            ("{\"@metadata\":{\"@id\":\"x\",\"@collection\":null}}", "\"@metadata\".\"@collection\" is not a string"),
            ("{\"@metadata\":{\"@id\":\"\",\"@collection\":\"orders\"}}", "invalid"),
            ("{\"@metadata\":{\"@id\":\"" + new string('i', 600) + "\",\"@collection\":\"orders\"}}", "invalid"),
            ("{\"@metadata\":{\"@id\":\"x\",\"@collection\":\"a/b\"}}", "invalid"),
            (Line("orders/big", "\"s\":\"" + new string('s', 2000) + "\""), "the document is"),
            (Line("orders/long", "\"s\":\"" + new string('s', 100_000) + "\""), "the line is longer"),
            (Line("orders/huge", "\"s\":\"" + new string('s', 1_500_000) + "\""), "the line is longer"), // longer than the reader's buffer
            (Line("orders/2"), null),
        };
        var text = string.Concat(lines.Select(l => l.Text + "\n"));
        var result = await ImportTextAsync(store, text);
        Assert.Equal(2, result.Imported);
        Assert.Equal(lines.Length - 2, result.Rejected);
        var expected = lines.Select((l, i) => (Line: i + 1L, l.Reason)).Where(l => l.Reason != null).ToList();
        Assert.Equal(expected.Select(e => e.Line), result.Rejections.Select(r => r.Line));
        for (var i = 0; i < expected.Count; i++)
        {
            Assert.StartsWith(expected[i].Reason!, result.Rejections[i].Reason, StringComparison.Ordinal);
        }

        await using var session = store.OpenSession();
        Assert.Equal("c", (await session.LoadAsync("orders/2", Json.Order))!.Customer);
        Assert.Equal(2, store.CheckIntegrity().Documents);

        var few = await ImportTextAsync(store, text, new DocumentImportOptions { MaxRejectionsKept = 3 });
        Assert.Equal(lines.Length - 2, few.Rejected);
        Assert.Equal([2L, 3, 4], few.Rejections.Select(r => r.Line));
    }

    [Fact]
    public async Task Blank_lines_crlf_a_byte_order_mark_and_a_missing_last_line_break_are_accepted_and_the_last_duplicate_wins()
    {
        await using var store = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = 2);
        var text = "\uFEFF" + Line("orders/1", "\"customer\":\"first\"") + "\r\n\r\n   \n" + Line("orders/2") + "\r\n" +
                   Line("orders/3") + "\n" + Line("orders/1", "\"customer\":\"last\"") + "\nbad\r\n" + Line("orders/4");
        var result = await ImportTextAsync(store, text);
        Assert.Equal([new ImportRejection(7, "not a JSON object: ")], result.Rejections.Select(r => r with { Reason = r.Reason[..19] }));
        Assert.Equal(5, result.Imported);
        await using var session = store.OpenSession();
        Assert.Equal("last", (await session.LoadAsync("orders/1", Json.Order))!.Customer);
        Assert.Equal(4, store.CheckIntegrity().Documents);
    }

    [Fact]
    public async Task An_id_stored_in_another_collection_ends_the_import_and_the_batches_before_stay()
    {
        await using var store = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = 2);
        await ImportLinesAsync(store, [Line("orders/1")]);
        var moved = "{\"@metadata\":{\"@id\":\"orders/1\",\"@collection\":\"User\"}}";
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => ImportLinesAsync(store, [Line("a/1"), Line("a/2"), moved]));
        Assert.Contains("belongs to collection 'orders'", error.Message, StringComparison.Ordinal);
        await using var session = store.OpenSession();
        Assert.NotNull(await session.LoadAsync("a/2", Json.Order));
        Assert.Equal(3, store.CheckIntegrity().Documents);
    }

    [Fact]
    public async Task A_generated_shape_id_raises_the_counter_so_new_ids_do_not_collide()
    {
        await using var store = DocumentTestStore.InMemory();
        await ImportLinesAsync(store, [Line("orders/41")]);
        await using var session = store.OpenSession();
        var order = new Order { Customer = "new" };
        session.Store(order, Json.Order);
        await session.SaveChangesAsync();
        Assert.Equal("orders/42", order.Id);
    }

    [Fact]
    public async Task Progress_counts_lines_monotonically_and_cancellation_keeps_the_batches_saved()
    {
        await using var store = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = 1000);
        var text = new StringBuilder();
        for (var i = 0; i < 25_000; i++)
        {
            text.Append(Line($"orders/{i}")).Append('\n');
        }

        var progress = new Recorder();
        var result = await ImportTextAsync(store, text.ToString(), new DocumentImportOptions { Progress = progress });
        Assert.Equal(25_000, result.Imported);
        Assert.Equal([10_000, 20_000, 25_000], progress.Reports);

        await using var other = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = 1000);
        using var cancel = new CancellationTokenSource();
        var stopping = new Recorder(n => cancel.Cancel());
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() =>
            ImportTextAsync(other, text.ToString(), new DocumentImportOptions { Progress = stopping }, cancel.Token));
        var kept = other.CheckIntegrity().Documents;
        Assert.InRange(kept, 1, 10_000);
    }
}
