using System.Globalization;
using System.Text;

namespace Voron.Archive;

// FORMAT: the writer's lease, <lineage>/lease in a destination (version 1). A few lines of UTF-8
// text, each "<name> <value>" and a LF, in this order and no other:
//
//   voron-lease 1                          the magic and the format version
//   holder <32 hex digits>                 the holder id: the same for every life of one store's archive on one machine (LS8)
//   write <16 hex digits>                  random per write: no two writes have the same bytes (LW2)
//   machine <name>                         Environment.MachineName: 1..255 bytes, no control characters
//   process <decimal>                      the holder's process id
//   expires <decimal>                      when it expires, Unix milliseconds (UTC) by the holder's clock
//
// A lease is valid iff: it is at most 1 KiB, every line is present in this order and ends with LF,
// the hex fields have exactly their digits (lowercase), the numbers are decimal without sign and
// fit a long. A version above 1 is a newer build's (FormatVersionException); version 0 and anything
// else invalid is damage (CorruptionException naming the key), which stops shipping until an operator
// deletes the object. No checksum: the object is written whole (LW1) and every field is checked.
// Compatibility: a new field means a new version.

/// <summary>One lease as stored (the FORMAT block above).</summary>
internal sealed record ArchiveLeaseRecord(string Holder, string Write, string Machine, long Process, long ExpiresUnixMilliseconds)
{
    public const int Version = 1;
    public const int MaxSize = 1024;

    public DateTimeOffset Expires => DateTimeOffset.FromUnixTimeMilliseconds(ExpiresUnixMilliseconds);

    /// <summary>For messages: who holds it and until when.</summary>
    public string Describe() => $"holder {Holder} (machine {Machine}, process {Process}, until {Expires:O})";

    public byte[] Encode() => Encoding.UTF8.GetBytes(
        $"voron-lease {Version}\nholder {Holder}\nwrite {Write}\nmachine {Machine}\nprocess {Process.ToString(CultureInfo.InvariantCulture)}\n" +
        $"expires {ExpiresUnixMilliseconds.ToString(CultureInfo.InvariantCulture)}\n");

    /// <summary>A machine name as the format allows it: control characters replaced, cut to 255 bytes.</summary>
    public static string CleanMachineName(string name)
    {
        var clean = new StringBuilder();
        foreach (var rune in (string.IsNullOrEmpty(name) ? "unknown" : name).EnumerateRunes())
        {
            var text = Rune.IsControl(rune) ? "?" : rune.ToString();
            if (Encoding.UTF8.GetByteCount(clean.ToString() + text) > 255)
            {
                break;
            }

            clean.Append(text);
        }

        return clean.ToString();
    }

    /// <summary>Decodes and validates a stored lease; <paramref name="where"/> names it in errors.</summary>
    public static ArchiveLeaseRecord Decode(byte[] bytes, string where)
    {
        if (bytes.Length > MaxSize)
        {
            throw Damaged(where, 0, $"the lease is {bytes.Length:N0} bytes, more than {MaxSize:N0}");
        }

        string text;
        try
        {
            text = new UTF8Encoding(false, throwOnInvalidBytes: true).GetString(bytes);
        }
        catch (DecoderFallbackException e)
        {
            throw Damaged(where, e.Index, "the lease is not UTF-8 text");
        }

        var offset = 0;
        var lines = new List<(string Value, int Offset)>();
        string[] names = ["voron-lease", "holder", "write", "machine", "process", "expires"];
        foreach (var name in names)
        {
            var end = text.IndexOf('\n', offset);
            if (end < 0 || !text.AsSpan(offset).StartsWith(name + " ", StringComparison.Ordinal))
            {
                throw Damaged(where, Encoding.UTF8.GetByteCount(text.AsSpan(0, offset)), $"line {lines.Count + 1} is not \"{name} <value>\" ending with LF");
            }

            lines.Add((text[(offset + name.Length + 1)..end], Encoding.UTF8.GetByteCount(text.AsSpan(0, offset))));
            offset = end + 1;
        }

        if (offset != text.Length)
        {
            throw Damaged(where, Encoding.UTF8.GetByteCount(text.AsSpan(0, offset)), "bytes follow the last line");
        }

        var version = Number(lines[0], where, "the version");
        if (version > Version)
        {
            throw new FormatVersionException(where, (int)Math.Min(version, int.MaxValue), Version,
                "A newer Voron build holds this lease: ship with that build, or delete the object once no store ships to this lineage.");
        }

        if (version != Version)
        {
            throw Damaged(where, lines[0].Offset, $"the version is {version}, which no build writes");
        }

        var machine = lines[3].Value;
        if (machine.Length == 0 || Encoding.UTF8.GetByteCount(machine) > 255 || machine.EnumerateRunes().Any(Rune.IsControl))
        {
            throw Damaged(where, lines[3].Offset, "the machine name is empty, longer than 255 bytes, or holds control characters");
        }

        return new ArchiveLeaseRecord(Hex(lines[1], 32, where, "the holder"), Hex(lines[2], 16, where, "the write id"), machine,
            Number(lines[4], where, "the process id"), Number(lines[5], where, "the expiry"));
    }

    private static string Hex((string Value, int Offset) line, int digits, string where, string what)
    {
        if (line.Value.Length != digits || !line.Value.All(c => char.IsAsciiDigit(c) || c is >= 'a' and <= 'f'))
        {
            throw Damaged(where, line.Offset, $"{what} is not {digits} lowercase hex digits");
        }

        return line.Value;
    }

    private static long Number((string Value, int Offset) line, string where, string what) =>
        line.Value.Length is > 0 and <= 19 && line.Value.All(char.IsAsciiDigit) &&
        long.TryParse(line.Value, NumberStyles.None, CultureInfo.InvariantCulture, out var value)
            ? value
            : throw Damaged(where, line.Offset, $"{what} is not a decimal number");

    private static CorruptionException Damaged(string where, long offset, string reason) =>
        new(where, offset, $"LS7: {reason}. Delete the lease object if no store ships to this lineage now; the next pass takes a new one");
}
