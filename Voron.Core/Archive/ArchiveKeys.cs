using System.Globalization;

namespace Voron.Archive;

// The archive's key layout in a destination (docs/object-storage.md shows it):
//
//   <lineage>/journal/<file number>          a shipped journal file (kind 1)
//   <lineage>/snapshots/<S>/<file name>      a shipped backup's files (kind 2); voron.backup last
//   <lineage>/fork                           where this lineage forked from (kind 3)
//   <lineage>/lease                          the writer's lease (the FORMAT block in ArchiveLease.cs)
//   <lineage>/lease-probe/<holder>           a moment's check that the destination enforces conditions (LS6)
//
// AK1. every number in a key is 16 lowercase hex digits, so ordinal key order is numeric order (AD4).
// AK2. a lineage is a store id: a store writes only keys under its own id, and a restored store
//      has a new id (BK4), so it never writes into the lineage it was restored from.
// AK3. one exception, a compacted store (also a new id, CP-rules in StorageEnvironment.Compaction.cs):
//      it ships the old store's last journal files, written and bound to the old id before the
//      compaction, under the old lineage, and nothing else there (SH8 in ArchiveShipper.cs).

/// <summary>The archive's keys (AK1..AK3 above).</summary>
internal static class ArchiveKeys
{
    public static string Lineage(ulong lineage) => lineage.ToString("x16", CultureInfo.InvariantCulture);

    public static string JournalPrefix(ulong lineage) => $"{Lineage(lineage)}/journal/";

    public static string Journal(ulong lineage, long number) => JournalPrefix(lineage) + Number(number);

    public static string SnapshotsPrefix(ulong lineage) => $"{Lineage(lineage)}/snapshots/";

    public static string Snapshot(ulong lineage, long transaction) => SnapshotsPrefix(lineage) + Number(transaction) + "/";

    public static string Fork(ulong lineage) => $"{Lineage(lineage)}/fork";

    public static string Lease(ulong lineage) => $"{Lineage(lineage)}/lease";

    public static string LeaseProbe(ulong lineage, string holder) => $"{Lineage(lineage)}/lease-probe/{holder}";

    public static string Number(long value) => value.ToString("x16", CultureInfo.InvariantCulture);

    /// <summary>The 16-hex-digit number at the start of <paramref name="text"/>, or null (AK1).</summary>
    public static long? ParseNumber(ReadOnlySpan<char> text) =>
        text.Length >= 16 && long.TryParse(text[..16], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var value) && value >= 0
            ? value
            : null;

    /// <summary>The lineage a key or prefix names (16 hex digits), or null.</summary>
    public static ulong? ParseLineage(ReadOnlySpan<char> text) =>
        text.Length >= 16 && ulong.TryParse(text[..16], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var value) ? value : null;

    /// <summary>Refuses a key an implementation could not store as a relative path (IArchiveDestination's remarks).</summary>
    public static void Validate(string key)
    {
        ArgumentException.ThrowIfNullOrEmpty(key);
        if (key[0] == '/' || key[^1] == '/' || key.Contains("//", StringComparison.Ordinal) || key.Split('/').Any(part => part is "." or ".."))
        {
            throw new ArgumentException($"'{key}' is not an archive key: keys are relative paths without empty, '.' or '..' parts.", nameof(key));
        }

        foreach (var c in key)
        {
            if (!(char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.' or '/'))
            {
                throw new ArgumentException($"'{key}' is not an archive key: use ASCII letters, digits, '-', '_', '.' and '/'.", nameof(key));
            }
        }
    }
}
