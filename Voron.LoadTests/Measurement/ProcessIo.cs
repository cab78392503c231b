using System.Globalization;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// Bytes this process has handed to write()/pwrite() calls so far (<c>wchar</c> in
/// /proc/self/io): what every engine writes to its files, measured the same way for managed and
/// native code. Zero where /proc is missing.
/// </summary>
internal static class ProcessIo
{
    public static long BytesWritten()
    {
        const string path = "/proc/self/io";
        if (!File.Exists(path))
        {
            return 0;
        }

        foreach (var line in File.ReadLines(path))
        {
            if (line.StartsWith("wchar:", StringComparison.Ordinal))
            {
                return long.Parse(line.AsSpan(6).Trim(), NumberStyles.None, CultureInfo.InvariantCulture);
            }
        }

        return 0;
    }
}
