using System.Text.Json.Nodes;

namespace Voron.Tests.Documents.ExportImport;

/// <summary>Helpers of the export/import tests: exporting to lines, importing from text, comparing lines.</summary>
internal static class ExportImportTestKit
{
    public static async Task<string[]> ExportLinesAsync(DocumentStore store, DocumentExportOptions? options = null)
    {
        using var stream = new MemoryStream();
        var result = await store.ExportAsync(stream, options);
        var text = Encoding.UTF8.GetString(stream.ToArray());
        Assert.Equal(stream.Length, result.Bytes);
        Assert.True(text.Length == 0 || text.EndsWith('\n'), "every line ends with \\n");
        var lines = text.Length == 0 ? [] : text[..^1].Split('\n');
        Assert.Equal(result.Documents, lines.Length);
        return lines;
    }

    public static Task<DocumentImportResult> ImportTextAsync(DocumentStore store, string text, DocumentImportOptions? options = null, CancellationToken cancellationToken = default) =>
        store.ImportAsync(new MemoryStream(Encoding.UTF8.GetBytes(text)), options, cancellationToken);

    public static Task<DocumentImportResult> ImportLinesAsync(DocumentStore store, IEnumerable<string> lines) =>
        ImportTextAsync(store, string.Concat(lines.Select(l => l + "\n")));

    /// <summary>The line with "@version" and "@last-modified" taken out of its text (the rest byte for byte).</summary>
    public static string WithoutVersionAndTime(string line)
    {
        var metadata = JsonNode.Parse(line)!["@metadata"]!;
        var version = metadata["@version"]!.ToJsonString();
        var time = metadata["@last-modified"]!.ToJsonString();
        var stripped = line.Replace(",\"@version\":" + version + ",\"@last-modified\":" + time, "", StringComparison.Ordinal);
        Assert.NotEqual(line, stripped);
        return stripped;
    }

    /// <summary>An <see cref="IProgress{T}"/> that records reports synchronously and may act on them.</summary>
    public sealed class Recorder(Action<long>? onReport = null) : IProgress<long>
    {
        public List<long> Reports { get; } = [];

        public void Report(long value)
        {
            lock (Reports)
            {
                Reports.Add(value);
            }

            onReport?.Invoke(value);
        }
    }
}
