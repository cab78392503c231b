namespace Voron.LoadTests.Measurement;

/// <summary>
/// What a reader of a report needs to know about the machine and the disk it ran on: the CPU
/// model and count, memory, kernel, and the file system under the data directory with its mount
/// options and the device's write-cache mode. Read from /proc and /sys on Linux; elsewhere the
/// fields are null.
/// </summary>
/// <param name="CpuModel">The first <c>model name</c> of /proc/cpuinfo.</param>
/// <param name="Cores">Logical processors this process may use.</param>
/// <param name="MemoryGiB">MemTotal of /proc/meminfo.</param>
/// <param name="Kernel">/proc/sys/kernel/osrelease.</param>
/// <param name="FileSystem">The mount under the data directory: type, source, mount point.</param>
/// <param name="MountOptions">The mount's options and the file system's own (super) options, as /proc/self/mountinfo gives them.</param>
/// <param name="DeviceWriteCache">/sys/block/&lt;disk&gt;/queue/write_cache ("write back" means flushes reach the device's cache flush).</param>
internal sealed record MachineDescription(
    string? CpuModel,
    int Cores,
    double? MemoryGiB,
    string? Kernel,
    string? FileSystem,
    string? MountOptions,
    string? DeviceWriteCache)
{
    /// <summary>Describes this machine, with the file system that holds <paramref name="dataDirectory"/>.</summary>
    public static MachineDescription For(string dataDirectory)
    {
        var mount = ReadOrNull("/proc/self/mountinfo") is { } mountinfo ? FindMount(mountinfo, Path.GetFullPath(dataDirectory)) : null;
        return new MachineDescription(
            ReadOrNull("/proc/cpuinfo") is { } cpuinfo ? CpuModelOf(cpuinfo) : null,
            Environment.ProcessorCount,
            ReadOrNull("/proc/meminfo") is { } meminfo ? MemoryGiBOf(meminfo) : null,
            ReadOrNull("/proc/sys/kernel/osrelease")?.Trim(),
            mount is null ? null : $"{mount.Type} on {mount.Source} (mounted at {mount.MountPoint})",
            mount is null ? null : $"{mount.Options}; super: {mount.SuperOptions}",
            mount is null ? null : WriteCacheOf(mount.Source));
    }

    /// <summary>Adds every field to <paramref name="report"/> as a fact.</summary>
    public void AddTo(Reporting.Report report)
    {
        report.AddFact("cpuModel", CpuModel);
        report.AddFact("cores", Cores);
        report.AddFact("memoryGiB", MemoryGiB);
        report.AddFact("kernel", Kernel);
        report.AddFact("fileSystem", FileSystem);
        report.AddFact("mountOptions", MountOptions);
        report.AddFact("deviceWriteCache", DeviceWriteCache);
    }

    internal static string? CpuModelOf(string cpuinfo) =>
        cpuinfo.Split('\n').Where(l => l.StartsWith("model name", StringComparison.Ordinal))
            .Select(l => l[(l.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim())
            .FirstOrDefault();

    internal static double? MemoryGiBOf(string meminfo)
    {
        var line = meminfo.Split('\n').FirstOrDefault(l => l.StartsWith("MemTotal:", StringComparison.Ordinal));
        var kib = line?.Split(' ', StringSplitOptions.RemoveEmptyEntries).ElementAtOrDefault(1);
        return long.TryParse(kib, NumberStyles.None, CultureInfo.InvariantCulture, out var value) ? Math.Round(value / 1048576.0, 1) : null;
    }

    /// <summary>
    /// The mount whose mount point is the longest prefix of <paramref name="path"/>, from the text
    /// of /proc/self/mountinfo: <c>id parent major:minor root mountpoint options [optional...] - type source superoptions</c>.
    /// </summary>
    internal static Mount? FindMount(string mountinfo, string path)
    {
        Mount? best = null;
        foreach (var line in mountinfo.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            var fields = line.Split(' ');
            var separator = Array.IndexOf(fields, "-");
            if (fields.Length < 6 || separator < 6 || separator + 3 > fields.Length)
            {
                continue;
            }

            var mountPoint = Unescape(fields[4]);
            var under = mountPoint == "/" || path == mountPoint || path.StartsWith(mountPoint + "/", StringComparison.Ordinal);
            if (under && (best is null || mountPoint.Length >= best.MountPoint.Length))
            {
                best = new Mount(mountPoint, fields[5], fields[separator + 1], Unescape(fields[separator + 2]),
                    separator + 3 < fields.Length ? fields[separator + 3] : "");
            }
        }

        return best;
    }

    /// <summary>mountinfo escapes space, tab, newline and backslash as octal (\040 ...).</summary>
    private static string Unescape(string field) =>
        field.Replace("\\040", " ", StringComparison.Ordinal).Replace("\\011", "\t", StringComparison.Ordinal)
            .Replace("\\012", "\n", StringComparison.Ordinal).Replace("\\134", "\\", StringComparison.Ordinal);

    /// <summary>The write-cache mode of the disk under <paramref name="source"/> (/dev/vda1 → vda), or null.</summary>
    private static string? WriteCacheOf(string source)
    {
        if (!source.StartsWith("/dev/", StringComparison.Ordinal))
        {
            return null;
        }

        var device = source[5..];
        foreach (var candidate in new[] { device, device.TrimEnd("0123456789".ToCharArray()), device.Split('p')[0] })
        {
            if (candidate.Length > 0 && ReadOrNull($"/sys/block/{candidate}/queue/write_cache") is { } mode)
            {
                return $"{mode.Trim()} ({candidate})";
            }
        }

        return null;
    }

    private static string? ReadOrNull(string path)
    {
        try
        {
            return File.Exists(path) ? File.ReadAllText(path) : null;
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>One line of /proc/self/mountinfo.</summary>
    internal sealed record Mount(string MountPoint, string Options, string Type, string Source, string SuperOptions);
}
