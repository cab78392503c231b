namespace Voron.LoadTests.Measurement;

/// <summary>
/// Bytes written to the block device under a directory, from <c>/sys/class/block/&lt;dev&gt;/stat</c>
/// (sectors written, always in 512-byte units): what really reached the device, the file
/// system's own journal and metadata included. Device-wide: every process's writes count, so the
/// figure is meaningful only on an otherwise quiet machine, and reports say so.
/// </summary>
internal sealed class DeviceIo
{
    private readonly string _statPath;

    private DeviceIo(string device, string statPath)
    {
        Device = device;
        _statPath = statPath;
    }

    /// <summary>The device's name (vda, nvme0n1p2 ...).</summary>
    public string Device { get; }

    /// <summary>The device holding <paramref name="directory"/>, or null where it cannot be found (not Linux, a network or overlay file system).</summary>
    public static DeviceIo? For(string directory)
    {
        try
        {
            if (!File.Exists("/proc/self/mountinfo"))
            {
                return null;
            }

            var mount = MachineDescription.FindMount(File.ReadAllText("/proc/self/mountinfo"), Path.GetFullPath(directory));
            if (mount is null || !mount.Source.StartsWith("/dev/", StringComparison.Ordinal))
            {
                return null;
            }

            var device = Path.GetFileName(mount.Source);
            var stat = $"/sys/class/block/{device}/stat";
            return File.Exists(stat) ? new DeviceIo(device, stat) : null;
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

    /// <summary>Bytes written to the device since boot.</summary>
    public long BytesWritten() => ParseBytesWritten(File.ReadAllText(_statPath));

    /// <summary>Field 7 of a block device's stat file (sectors written) times 512.</summary>
    internal static long ParseBytesWritten(string stat)
    {
        var fields = stat.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        return fields.Length > 6 && long.TryParse(fields[6], NumberStyles.None, CultureInfo.InvariantCulture, out var sectors) ? sectors * 512 : 0;
    }
}
