using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace Voron.Platform;

// FORMAT: lock file record, version 1 — voron.lock, written by the opener that holds the lock.
//
// The lock file's purpose is its lock (RealFiles.LockExclusive: FileShare.None, which is
// flock(LOCK_EX | LOCK_NB) on Linux and macOS). Once an opener holds it, it writes into the file
// who it is, so that a second opener's StoreLockedException and StorageEnvironment.Inspect can
// name the holder. The record is informational only: nothing reads it to decide anything, it is
// not synced, and it outlives the holder (after a close or a crash it names the last opener).
//
//   voron-lock 1\n
//   pid=1234\n
//   process=dotnet\n
//   durability=Durable\n
//   opened=2026-11-27T06:20:04.1234567Z\n
//
//   LINE  NAME        MEANING
//   1     header      "voron-lock " and the record's version, a positive decimal integer
//   2..   pid         the holder's process id, decimal
//         process     the holder's process name (control characters written as '?')
//         durability  the DurabilityMode it opened with: "Durable" or "Lazy"
//         opened      when it took the lock: UTC, ISO 8601, "yyyy-MM-ddTHH:mm:ss.fffffffZ"
//
// UTF-8, lines end with '\n' (a '\r' before it is ignored), one "name=value" a line; the value is
// everything after the first '='. No checksum: a reader judges each field alone.
//
// LF1. a record is read only if the file is at most MaxBytes long and its first line is the
//      header; otherwise (empty, torn by a crash, another format) it tells nothing.
// LF2. a field is told iff its line is present once and its value passes its rule: pid a decimal
//      integer > 0; process 1..MaxProcessNameLength characters; durability a DurabilityMode's name;
//      opened the timestamp above. A field that fails its rule, or appears twice, is not told
//      (null); the other fields still are.
// LF3. reading a record never throws: the file only informs, so damage to it must not stop
//      anything (an open never reads it, and a damaged one is rewritten by the next opener).
//
// Write algorithm: after the lock is taken, on the lock's own FileStream (Windows lets no other
// handle in): truncate to zero, write the record, flush to the OS. Not synced: a crash may leave
// it empty or torn, which LF1 reads as nothing told. A failed write (a full disk) is ignored.
//
// Compatibility: a later version keeps the version-1 fields and their meaning and may add lines;
// a reader skips names it does not know, so older readers read newer records.

/// <summary>Writes and reads the lock file's holder record; see the FORMAT block above.</summary>
internal static class LockFileRecord
{
    public const string Header = "voron-lock ";
    public const int Version = 1;
    public const int MaxBytes = 4096;
    public const int MaxProcessNameLength = 256;
    public const string TimestampFormat = "yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'";

    private static readonly Lazy<string> ProcessName = new(ReadProcessName);

    /// <summary>
    /// Writes this process's record into the lock file when <paramref name="storeLock"/> is the
    /// lock file's stream (the real file systems); other locks (in memory) have no file to write.
    /// Failures are ignored: the record only informs (LF3).
    /// </summary>
    public static void TryWrite(IDisposable storeLock, DurabilityMode durability)
    {
        if (storeLock is not FileStream stream)
        {
            return;
        }

        try
        {
            var bytes = Encode(Environment.ProcessId, ProcessName.Value, durability, DateTimeOffset.UtcNow);
            stream.SetLength(0);
            stream.Position = 0;
            stream.Write(bytes);
            stream.Flush();
        }
#pragma warning disable CA1031 // LF3: the record only informs; whatever fails writing it (a full disk, a read-only file, the process name unreadable) must not stop the open or leave the lock taken
        catch (Exception)
        {
            // The store opens all the same.
        }
#pragma warning restore CA1031
    }

    public static byte[] Encode(int processId, string processName, DurabilityMode durability, DateTimeOffset openedAt)
    {
        var name = new string(processName.Take(MaxProcessNameLength).Select(c => char.IsControl(c) ? '?' : c).ToArray());
        var text = string.Create(CultureInfo.InvariantCulture,
            $"{Header}{Version}\npid={processId}\nprocess={name}\ndurability={durability}\nopened={openedAt.UtcDateTime.ToString(TimestampFormat, CultureInfo.InvariantCulture)}\n");
        return Encoding.UTF8.GetBytes(text);
    }

    /// <summary>What a record says (LF1, LF2); <paramref name="isHeld"/> is whether the lock is held now, which the file cannot tell.</summary>
    public static StoreLockInfo Parse(ReadOnlySpan<byte> bytes, bool isHeld)
    {
        var nothing = new StoreLockInfo(isHeld, null, null, null, null);
        if (bytes.Length == 0 || bytes.Length > MaxBytes)
        {
            return nothing; // LF1
        }

        var lines = Encoding.UTF8.GetString(bytes).Split('\n').Select(l => l.TrimEnd('\r')).ToList();
        if (!lines[0].StartsWith(Header, StringComparison.Ordinal) ||
            !int.TryParse(lines[0].AsSpan(Header.Length), NumberStyles.None, CultureInfo.InvariantCulture, out var version) || version < 1)
        {
            return nothing; // LF1
        }

        var fields = lines.Skip(1)
            .Select(l => l.Split('=', 2))
            .Where(p => p.Length == 2)
            .GroupBy(p => p[0], p => p[1], StringComparer.Ordinal)
            .Where(g => g.Count() == 1) // LF2: a name twice tells nothing
            .ToDictionary(g => g.Key, g => g.Single(), StringComparer.Ordinal);

        int? processId = fields.TryGetValue("pid", out var pid) &&
                         int.TryParse(pid, NumberStyles.None, CultureInfo.InvariantCulture, out var id) && id > 0 ? id : null;
        var processName = fields.TryGetValue("process", out var process) && process.Length is > 0 and <= MaxProcessNameLength ? process : null;
        DurabilityMode? durability = fields.TryGetValue("durability", out var mode) && Enum.GetNames<DurabilityMode>().Contains(mode)
            ? Enum.Parse<DurabilityMode>(mode)
            : null;
        DateTimeOffset? openedAt = fields.TryGetValue("opened", out var opened) &&
                                   DateTime.TryParseExact(opened, TimestampFormat, CultureInfo.InvariantCulture,
                                       DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out var at)
            ? new DateTimeOffset(DateTime.SpecifyKind(at, DateTimeKind.Utc))
            : null;
        return new StoreLockInfo(isHeld, processId, processName, durability, openedAt);
    }

    private static string ReadProcessName()
    {
        try
        {
            using var process = Process.GetCurrentProcess();
            return process.ProcessName;
        }
        catch (Exception e) when (e is InvalidOperationException or PlatformNotSupportedException or System.ComponentModel.Win32Exception)
        {
            return "";
        }
    }
}
