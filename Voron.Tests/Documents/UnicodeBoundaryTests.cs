using System.Text.Json;
using System.Text.Json.Serialization;
using Voron.Documents.Storage;

namespace Voron.Tests.Documents;

/// <summary>A document whose one string member a converter writes as raw JSON (what a custom converter can do).</summary>
[DocumentCollection("c")]
public sealed class RawText
{
    public string? Id { get; set; }

    [JsonConverter(typeof(RawStringConverter))]
    [JsonPropertyName("a")]
    public string A { get; set; } = "";
}

/// <summary>Writes the string as the JSON text of a string value, unchecked: <c>"</c> + value + <c>"</c>.</summary>
public sealed class RawStringConverter : JsonConverter<string>
{
    public override string? Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) => reader.GetString();

    public override void Write(Utf8JsonWriter writer, string value, JsonSerializerOptions options) =>
        writer.WriteRawValue(Encoding.Latin1.GetBytes("\"" + value + "\""), skipInputValidation: true);
}

[JsonSerializable(typeof(RawText))]
[JsonSerializable(typeof(Note))]
public sealed partial class RawTextJson : JsonSerializerContext;

/// <summary>
/// What text the store takes (JV1..JV4 in Serialization/JsonValidation.cs): every entry point that
/// takes JSON refuses bad text with an <see cref="InvalidJsonException"/> giving its byte position,
/// and stores nothing; good text is stored as given, reads back byte for byte and is indexed.
/// </summary>
public sealed class UnicodeBoundaryTests(ITestOutputHelper output)
{
    /// <summary>
    /// Bad string contents, written as the bytes between the quotes of "a" (Latin-1: one char a
    /// byte), with the offset of the offence in them.
    /// </summary>
    public static TheoryData<string, string, int> BadStrings => new()
    {
        { "lone high surrogate escape", "\\ud800", 0 },
        { "lone low surrogate escape", "\\udc00", 0 },
        { "high then a non-surrogate escape", "\\ud800\\u0041", 0 },
        { "low then high", "\\udc00\\ud800", 0 },
        { "high at the end after text", "x\\uD83D", 1 },
        { "high then a raw character", "\\uD83Dx", 0 },
        { "two highs", "\\uD83D\\uD83D\\uDE00", 0 },
        { "pair then a lone low", "\\uD83D\\uDE00\\uDE00", 12 },
        { "escaped backslash then a lone escape", "\\\\\\ud800", 2 },
        { "invalid byte FF", "\u00ff", 0 },
        { "overlong slash", "\u00c0\u00af", 0 },
        { "overlong NUL", "\u00c0\u0080", 0 },
        { "overlong three bytes", "\u00e0\u0080\u00af", 0 },
        { "UTF-8 encoded surrogate", "ab\u00ed\u00a0\u0080", 2 },
        { "truncated sequence", "\u00e2\u0082", 0 },
        { "above U+10FFFF", "\u00f4\u0090\u0080\u0080", 0 },
        { "lone continuation byte", "a\u0080", 1 },
        { "raw NUL", "\u0000", 0 },
        { "raw control character", "a\u0001", 1 },
        { "unknown escape", "\\x", 1 }, // System.Text.Json's positions: the bad character after the backslash
        { "short unicode escape", "\\u12", 4 }, // ... and the first non-hex character
    };

    /// <summary>Good string contents (between the quotes), with the string they hold.</summary>
    public static TheoryData<string, string, string> GoodStrings => new()
    {
        { "escaped surrogate pair", "\\ud83d\\ude00", "\U0001F600" },
        { "escaped surrogate pair, upper case", "\\uD83D\\uDE00", "\U0001F600" },
        { "raw four-byte character", "\u00f0\u009f\u0098\u0080", "\U0001F600" },
        { "escaped NUL", "a\\u0000b", "a\0b" },
        { "escaped noncharacter U+FFFF", "\\uffff", "\uffff" },
        { "raw noncharacter U+FFFF", "\u00ef\u00bf\u00bf", "\uffff" },
        { "escaped noncharacter U+FDD0", "\\uFDD0", "\ufdd0" },
        { "escaped backslash before u", "\\\\ud800", "\\ud800" },
        { "escaped BMP character", "\\u00e9t\\u00E9", "\u00e9t\u00e9" },
        { "empty", "", "" },
    };

    private static byte[] Document(string inner) => Encoding.Latin1.GetBytes("{\"a\":\"" + inner + "\"}");

    private static async Task<(long Transaction, long Documents)> SnapshotAsync(DocumentStore store)
    {
        await Task.Yield();
        return (store.Environment.LastCommittedTransactionId, store.CheckIntegrity().Documents);
    }

    private static async Task<DocumentStore> OpenIndexedAsync()
    {
        var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(new IndexDefinition("c", "c_by_a", "a"));
        return store;
    }

    /// <summary>
    /// Of several documents with bad text in one save, the error names the first the session
    /// writes (the one-pass check went on to the later ones and reported the last).
    /// </summary>
    [Fact]
    public async Task A_save_with_two_bad_texts_names_the_first()
    {
        await using var store = await OpenIndexedAsync();
        await using var session = store.OpenSession();
        session.Store(new RawText { Id = "c/1", A = "\\ud800" }, RawTextJson.Default.RawText);
        session.Store(new RawText { Id = "c/2", A = "\\udc00" }, RawTextJson.Default.RawText);
        var error = await Assert.ThrowsAsync<InvalidJsonException>(() => session.SaveChangesAsync());
        Assert.Equal("c/1", error.Id);
    }

    // Regression: "\ud800" passed StoreRaw's check (Utf8JsonReader does not pair surrogate
    // escapes), then the save failed in the index with InvalidOperationException. Fixed: StoreRaw
    // checks escapes (JV2) and refuses with the escape's position.
    [Theory]
    [MemberData(nameof(BadStrings))]
    public async Task StoreRaw_refuses_bad_text_with_its_byte_position_and_stores_nothing(string what, string inner, int offset)
    {
        await using var store = await OpenIndexedAsync();
        var before = await SnapshotAsync(store);
        await using var session = store.OpenSession();
        var error = Assert.Throws<InvalidJsonException>(() => session.StoreRaw("c", "c/1", Document(inner)));
        Assert.True(error.BytePosition == 6 + offset, $"{what}: position {error.BytePosition}, expected {6 + offset} ({error.Message})");
        Assert.Equal("c/1", error.Id);
        await session.SaveChangesAsync();
        Assert.Equal(before, await SnapshotAsync(store));
    }

    [Theory]
    [InlineData("{\"\\ud800\":1}", 2)]
    [InlineData("{\"a\":{\"b\\udc00\":1}}", 8)]
    [InlineData("{\"a\":[1,\"\\ud800\"]}", 9)]
    [InlineData("{\"a\":\"ok\",\n\"b\":\"\\uDBFF\"}", 16)]
    public void StoreRaw_refuses_a_lone_surrogate_escape_in_names_nested_values_and_later_lines(string json, long position)
    {
        using var store = DocumentTestStore.InMemory();
        using var session = store.OpenSession();
        var error = Assert.Throws<InvalidJsonException>(() => session.StoreRaw("c", "c/1", Encoding.UTF8.GetBytes(json)));
        Assert.Equal(position, error.BytePosition);
        Assert.Equal("\\u", json.AsSpan((int)position, 2).ToString());
    }

    [Theory]
    [MemberData(nameof(BadStrings))]
    public async Task A_typed_save_and_a_bulk_insert_refuse_bad_text_a_converter_wrote(string what, string inner, int offset)
    {
        await using var store = await OpenIndexedAsync();
        var before = await SnapshotAsync(store);
        var document = new RawText { Id = "c/1", A = inner };
        var json = JsonSerializer.SerializeToUtf8Bytes(document, RawTextJson.Default.RawText);
        var expected = json.AsSpan().IndexOf("\"a\":\""u8) + 5 + offset;
        if (what is "raw NUL" or "raw control character" or "unknown escape" or "short unicode escape")
        {
            return; // bad JSON, not bad text: System.Text.Json itself refuses to write it
        }

        await using (var session = store.OpenSession())
        {
            session.Store(document, RawTextJson.Default.RawText);
            var error = await Assert.ThrowsAsync<InvalidJsonException>(() => session.SaveChangesAsync());
            Assert.True(error.BytePosition == expected, $"{what}: save position {error.BytePosition}, expected {expected}");
        }

        var bulk = await Assert.ThrowsAsync<InvalidJsonException>(() => store.BulkInsertAsync([new RawText { Id = "c/2", A = inner }], RawTextJson.Default.RawText));
        Assert.True(bulk.BytePosition == expected, $"{what}: bulk position {bulk.BytePosition}, expected {expected}");
        Assert.Equal(before, await SnapshotAsync(store));
    }

    [Theory]
    [MemberData(nameof(GoodStrings))]
    public async Task Good_text_is_stored_as_given_and_read_back_and_indexed(string what, string inner, string value)
    {
        await using var store = await OpenIndexedAsync();
        var json = Document(inner);
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("c", "c/raw", json);
            session.Store(new RawText { Id = "c/typed", A = inner }, RawTextJson.Default.RawText);
            await session.SaveChangesAsync();
        }

        await store.BulkInsertAsync([new RawText { Id = "c/bulk", A = inner }], RawTextJson.Default.RawText);
        await using (var session = store.OpenSession())
        {
            using var raw = await session.LoadRawAsync("c/raw");
            Assert.True(raw!.Json.Span.SequenceEqual(json), what);
            var typed = await session.LoadAsync("c/typed", RawTextJson.Default.RawText);
            Assert.Equal(value, typed!.A);
            var found = await session.QueryRaw("c").Where("a", QueryOperator.Equal, value).ToListAsync();
            Assert.Equal(["c/bulk", "c/raw", "c/typed"], found.Select(d => d.Id).Order(StringComparer.Ordinal));
            found.ForEach(d => d.Dispose());
        }

        store.CheckIntegrity(); // throws when documents and indexes disagree
    }

    [Fact]
    public async Task A_typed_string_with_a_lone_surrogate_is_written_as_the_replacement_character()
    {
        // System.Text.Json writes an unpaired surrogate of a .NET string as U+FFFD, so a typed
        // document can only hold valid text unless a converter writes raw JSON (tested above).
        await using var store = await OpenIndexedAsync();
        await using (var session = store.OpenSession())
        {
            session.Store(new Note { Text = "x\ud800" }, RawTextJson.Default.Note, "c/1");
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            var note = await session.LoadAsync("c/1", RawTextJson.Default.Note);
            output.WriteLine(note!.Text);
            Assert.Equal("x\ufffd", note.Text);
        }
    }

    // Regression: a document holding a lone surrogate escape (stored before JV2) made
    // EnsureIndexAsync fail with InvalidOperationException and left the index defined, never ready;
    // every later call failed the same way. Fixed: the index key encoder reports such a string as a
    // value it cannot index (ArgumentException naming the document), and any failed build drops the
    // index.
    [Fact]
    public async Task EnsureIndexAsync_over_a_stored_lone_surrogate_drops_the_index_and_reports_the_document()
    {
        await using var store = DocumentTestStore.InMemory();
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("c", "c/1", "{\"a\":\"\\ud83d\\ude00\"}"u8);
            session.StoreRaw("c", "c/2", "{\"a\":\"ok\"}"u8);
            await session.SaveChangesAsync();
        }

        // As a store written before JV2 would hold it: "\ud83d\u0041" (same length, no record checksum).
        using (var write = store.Environment.BeginWrite())
        {
            var docs = write.OpenTree(DocumentTrees.Documents)!;
            Assert.True(docs.TryGet("c/1"u8, out var record));
            var patched = record.ToArray();
            var at = patched.AsSpan().IndexOf("de00"u8);
            "0041"u8.CopyTo(patched.AsSpan(at));
            docs.Put("c/1"u8, patched);
            write.Commit();
        }

        var definition = new IndexDefinition("c", "c_by_a", "a");
        for (var attempt = 0; attempt < 2; attempt++)
        {
            var error = await Assert.ThrowsAsync<ArgumentException>(() => store.EnsureIndexAsync(definition));
            Assert.Contains("c/1", error.Message, StringComparison.Ordinal);
            Assert.Empty(store.GetIndexes("c"));
            var stored = Assert.Throws<InvalidJsonException>(() => store.CheckIntegrity()); // the integrity check names the document
            Assert.Equal("c/1", stored.Id);
        }

        await using (var session = store.OpenSession())
        {
            session.StoreRaw("c", "c/1", "{\"a\":\"fixed\"}"u8);
            await session.SaveChangesAsync();
        }

        Assert.True(await store.EnsureIndexAsync(definition));
        Assert.True(store.GetIndexes("c").Single().IsReady);
        await using (var session = store.OpenSession())
        {
            Assert.Equal(1, await session.QueryRaw("c").Where("a", QueryOperator.Equal, "fixed").CountAsync());
        }
    }
}
