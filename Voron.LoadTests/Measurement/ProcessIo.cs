namespace Voron.LoadTests.Measurement;

/// <summary>
/// A reading of <c>/proc/self/io</c>: what this process has written, in two senses. Take one
/// before and one after a workload and subtract (<see cref="op_Subtraction"/>); engines run one at
/// a time in this program, so the difference is that engine's, background threads included
/// (Voron's data-file flush, SQLite's checkpoints).
/// </summary>
/// <param name="WrittenToStorage">
/// <c>write_bytes - cancelled_write_bytes</c>: bytes this process caused to be sent to storage,
/// counted a page (4 KiB) at a time when a page-cache page is first dirtied; a page rewritten
/// before writeback counts once. The figure a write-amplification ratio uses.
/// </param>
/// <param name="HandedToWrite"><c>wchar</c>: bytes passed to write calls (write, pwrite, pwritev), whether or not they reach storage.</param>
/// <param name="WriteCalls"><c>syscw</c>: write system calls.</param>
/// <param name="Available">False where /proc/self/io cannot be read (not Linux, or a kernel without task I/O accounting): every figure is then 0.</param>
internal readonly record struct ProcessIo(long WrittenToStorage, long HandedToWrite, long WriteCalls, bool Available)
{
    private const string Path = "/proc/self/io";

    /// <summary>The process's counters now.</summary>
    public static ProcessIo Read()
    {
        try
        {
            return File.Exists(Path) ? Parse(File.ReadAllText(Path)) : default;
        }
        catch (IOException)
        {
            return default;
        }
        catch (UnauthorizedAccessException)
        {
            return default;
        }
    }

    /// <summary>Parses the text of /proc/&lt;pid&gt;/io (<c>name: value</c> lines).</summary>
    internal static ProcessIo Parse(string text)
    {
        var values = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (var line in text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            var colon = line.IndexOf(':', StringComparison.Ordinal);
            if (colon > 0 && long.TryParse(line.AsSpan(colon + 1), NumberStyles.AllowLeadingWhite, CultureInfo.InvariantCulture, out var value))
            {
                values[line[..colon]] = value;
            }
        }

        if (!values.TryGetValue("write_bytes", out var written) || !values.TryGetValue("wchar", out var handed))
        {
            return default;
        }

        return new ProcessIo(written - values.GetValueOrDefault("cancelled_write_bytes"), handed, values.GetValueOrDefault("syscw"), Available: true);
    }

    public static ProcessIo operator -(ProcessIo after, ProcessIo before) => new(
        after.WrittenToStorage - before.WrittenToStorage,
        after.HandedToWrite - before.HandedToWrite,
        after.WriteCalls - before.WriteCalls,
        after.Available && before.Available);

    public static ProcessIo operator +(ProcessIo left, ProcessIo right) => new(
        left.WrittenToStorage + right.WrittenToStorage,
        left.HandedToWrite + right.HandedToWrite,
        left.WriteCalls + right.WriteCalls,
        left.Available && right.Available);

    public static ProcessIo Add(ProcessIo left, ProcessIo right) => left + right;

    /// <summary>For reports: the bytes sent to storage, or null when the counters are not available.</summary>
    public long? StorageBytesOrNull => Available ? WrittenToStorage : null;

    public static ProcessIo Subtract(ProcessIo after, ProcessIo before) => after - before;

    /// <summary>Bytes handed to write calls so far (<c>wchar</c>), 0 where /proc/self/io cannot be read.</summary>
    public static long BytesWritten() => Read().HandedToWrite;
}
