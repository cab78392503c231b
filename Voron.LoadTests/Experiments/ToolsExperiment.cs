using Voron.Documents;
using Voron.LoadTests.Experiments.Documents;
using Voron.Tool;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// The <c>voron</c> tool's throughput, on one store of <c>--documents</c> ~1 KiB profiles
/// (1,000,000 by default: a data file of about 1.3 GiB), with an index on their city:
/// <list type="number">
/// <item><c>voron check</c> against <c>cat</c> of the store's files to <c>/dev/null</c>
///   (<c>ToolsExperiment.Check.cs</c>): MB/s of the store's bytes, interleaved and repeated, both
///   from a warm page cache and cold (the files dropped from the cache before each run).</item>
/// <item><c>voron export</c> to a sink (<c>ToolsExperiment.Check.cs</c>): documents/s and MB/s of
///   JSON Lines.</item>
/// <item><c>voron import</c> of that export into an empty store against
///   <see cref="DocumentStore.BulkInsertAsync{T}(IEnumerable{T}, System.Text.Json.Serialization.Metadata.JsonTypeInfo{T}, IProgress{long}?, CancellationToken)"/>
///   of the same documents as objects (<c>ToolsExperiment.Import.cs</c>): documents/s, each into a
///   new store with the same index, interleaved and repeated, the order alternating.</item>
/// </list>
/// The tool's commands run in this process through the same entry point as the installed tool
/// (<see cref="VoronTool.RunAsync"/>), opening and closing the store themselves; their time
/// includes that. MB is 10^6 bytes.
/// </summary>
internal sealed partial class ToolsExperiment : IExperiment
{
    internal const string ThroughputTable = "throughput";
    internal const string ImportTable = "import";
    internal const string RunsTable = "runs";
    internal const string Check = "voron check";
    internal const string Cat = "cat > /dev/null";
    internal const string CheckCold = "voron check (cold)";
    internal const string CatCold = "cat > /dev/null (cold)";
    internal const string Export = "voron export";
    internal const string BulkApi = "BulkInsertAsync";
    internal const string Import = "voron import";
    internal const double CheckTarget = 0.3;
    internal const double ExportTarget = 200_000;
    internal const double ImportTarget = 0.8;
    private const string IndexName = "ByCity";

    private readonly int? _documents;
    private readonly int? _rounds;

    /// <param name="documents">Documents in the store and in each import; default 1,000,000, 20,000 with --quick.</param>
    /// <param name="rounds">Rounds of each comparison; default 3.</param>
    public ToolsExperiment(int? documents = null, int? rounds = null)
    {
        _documents = documents;
        _rounds = rounds;
    }

    public string Name => "tools";

    public string Description => "voron check against cat of the files (MB/s), voron export (documents/s), voron import against the bulk-insert API";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var documents = _documents ?? (context.Quick ? 20_000 : 1_000_000);
        var rounds = _rounds ?? 3;
        var report = context.NewReport(Name, "The voron tool: check and export throughput, import against the bulk-insert API");
        report.GroupMarkdownBy("table");
        report.ShowGroupsFirst(ThroughputTable, ImportTable);
        report.AddFact("documents", documents);
        report.AddFact("rounds", rounds);
        report.AddFact("documentShape", "~1 KiB customer profiles with nested objects and arrays (Experiments/Documents/ProfileDataSet.cs), collection Profiles, an index on $.city");
        report.AddFact("durability", "every store opened with StorageEnvironmentOptions.ForDirectory's defaults, as the tool opens one: Durable (a batch is acknowledged once its journal record is fdatasync'd); the bulk-insert API and voron import both commit batches of DocumentStoreOptions.BulkInsertBatchSize through the merger");

        context.Progress($"making {documents:N0} profiles (not timed)");
        var profiles = new List<Profile>(documents);
        for (var i = 0; i < documents; i++)
        {
            profiles.Add(ProfileDataSet.Create(i));
        }

        var store = context.NewDirectory("tools-store");
        context.Progress($"building the store: {documents:N0} profiles through BulkInsertAsync (not timed)");
        var build = Stopwatch.StartNew();
        await BulkInsertAsync(store, profiles).ConfigureAwait(false);
        var storeBytes = StoreSize.Of(store);
        context.Progress($"built: {StoreSize.MiB(storeBytes):N0} MiB in {build.Elapsed.TotalSeconds:F1} s");
        report.AddFact("storeMiB", StoreSize.MiB(storeBytes));
        report.AddFact("dataFileMiB", StoreSize.MiB(StoreSize.OfFile(Path.Combine(store, "voron.data"))));

        await MeasureCheckAndExportAsync(context, report, store, storeBytes, documents, rounds).ConfigureAwait(false);
        await MeasureImportAsync(context, report, store, profiles, rounds).ConfigureAwait(false);
        return report;
    }

    /// <summary>A new store in <paramref name="directory"/> with the profiles' index, <paramref name="profiles"/> bulk-inserted; returns the seconds of the insert alone.</summary>
    private static async Task<double> BulkInsertAsync(string directory, List<Profile> profiles)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        await using var documents = DocumentStore.Open(environment);
        await documents.EnsureIndexAsync(IndexDefinition.For(ProfileJson.Default.Profile, IndexName, p => p.City)).ConfigureAwait(false);
        var watch = Stopwatch.StartNew();
        var written = await documents.BulkInsertAsync(profiles, ProfileJson.Default.Profile).ConfigureAwait(false);
        var seconds = watch.Elapsed.TotalSeconds;
        if (written != profiles.Count)
        {
            throw new InvalidOperationException($"BulkInsertAsync wrote {written:N0} documents, not {profiles.Count:N0}.");
        }

        return seconds;
    }

    /// <summary>
    /// Runs <c>voron args...</c> in this process, its data output going to <paramref name="output"/>
    /// (a sink when null); throws with what it printed unless it exits 0.
    /// </summary>
    private static async Task<string> RunToolAsync(Stream? output, params string[] args)
    {
        using var error = new StringWriter();
        using var text = new StringWriter();
        var sink = output ?? Stream.Null;
        var console = new ToolConsole(text, error, TextReader.Null, Interactive: false) { OpenRawOut = () => new NonClosingStream(sink) };
        var exit = await VoronTool.RunAsync(args, console, CancellationToken.None).ConfigureAwait(false);
        if (exit != ExitCodes.Ok)
        {
            throw new InvalidOperationException($"voron {string.Join(' ', args)} exited with {exit}:\n{error}\n{text}");
        }

        return text.ToString();
    }

    /// <summary>Bytes per second in MB/s (10^6 bytes).</summary>
    private static double MBps(long bytes, double seconds) => seconds > 0 ? bytes / 1e6 / seconds : 0;

    /// <summary>A stream over another that leaves it open when disposed (the tool disposes what it writes to).</summary>
    private sealed class NonClosingStream(Stream inner) : Stream
    {
        public override bool CanRead => false;
        public override bool CanSeek => false;
        public override bool CanWrite => true;
        public override long Length => throw new NotSupportedException();
        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }
        public override void Flush() => inner.Flush();
        public override Task FlushAsync(CancellationToken cancellationToken) => inner.FlushAsync(cancellationToken);
        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
        public override void SetLength(long value) => throw new NotSupportedException();
        public override void Write(byte[] buffer, int offset, int count) => inner.Write(buffer, offset, count);
        public override void Write(ReadOnlySpan<byte> buffer) => inner.Write(buffer);
        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default) => inner.WriteAsync(buffer, cancellationToken);
        public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) => inner.WriteAsync(buffer, offset, count, cancellationToken);
    }
}
