namespace Voron.Journal.Diff;

// FORMAT: page diff, version 1 — the bytes of one journal page entry whose Encoding is 1 (diff
// against the page's previous version) or 2 (diff against zeros); see JournalRecord.cs.
//
// A diff turns the previous version of a page (or of an overflow run of pages: the entry's
// PageCount * 8192 bytes taken as one target) into its new version. It is a sequence of RANGES in
// increasing target offset order; a range is an 8-byte header, then, for a positive Length, the
// Length new bytes. A negative Length means "the |Length| target bytes from Offset become zero"
// and carries no payload. Target bytes outside every range are unchanged. An empty diff (0 bytes)
// is valid and changes nothing. Integers are little-endian.
//
//   +------------+----------------+--------------+------------+----------------+-----
//   | Offset (4) | Length > 0 (4) | Length bytes | Offset (4) | Length < 0 (4) | ...
//   +------------+----------------+--------------+------------+----------------+-----
//    \______ a range of new bytes ______________/ \__ a range of zeros, no payload _/
//
// Example: bytes 258 and 259 became AA BB and bytes 4096..4195 became zero (18 bytes):
//   02 01 00 00  02 00 00 00  AA BB  00 10 00 00  9C FF FF FF
//
// Range header:
//   OFFSET SIZE NAME    MEANING
//   0      4    Offset  uint32: first target byte the range covers
//   4      4    Length  int32, never 0: > 0 = that many new bytes follow the header;
//                       < 0 = -Length target bytes become zero, nothing follows
//
// Why fixed 32-bit fields (Voron's own diff uses two int64s, 16 bytes a range): an entry's full
// image fits a 32-bit StoredLength (JournalRecord.MaxEntryPageCount), so 32 bits address any
// target; a fixed width makes the merge rule exact (Compute joins two changed ranges when the
// unchanged gap between them is shorter than a header, because then the gap's bytes cost less
// than a second header), leaves no overlong or non-canonical encodings to reject, and decodes
// with two fixed reads. Varints would save 4 to 6 bytes a range; a typical update writes 1 to 4
// ranges into a record already padded to 4096 bytes, so that saving is noise. The sign of Length
// tells a zero run from new bytes without spending a kind byte.
//
// There is no checksum of its own: the journal record's sector checksums cover the diff.
//
// Validity rules: a diff is valid for a target of T bytes iff, reading ranges from diff offset 0,
//   PD1. every range starts with a whole 8-byte header (no trailing partial header);
//   PD2. Length is not 0;
//   PD3. Offset is at or after the end of the previous range (ranges increase and do not overlap;
//       they may touch);
//   PD4. Offset + |Length| <= T (computed in 64 bits);
//   PD5. a positive Length is followed by Length payload bytes inside the diff;
// and the last range ends exactly at the end of the diff (which PD1 and PD5 imply).
// Apply and Validate throw InvalidDataException naming the rule and the diff offset of the
// broken range's header; the journal reader wraps that into a CorruptionException naming the
// file and record.
//
// Apply algorithm: validate the whole diff first (so a malformed diff leaves the target
// untouched), then for each range copy the payload to target[Offset..] or zero
// target[Offset .. Offset + |Length|). Apply writes nothing outside the ranges, so for Encoding 2
// (diff against zeros) the caller zero-fills the target before applying. Each range consumes at
// least 8 diff bytes, so the loops end.
//
// Replay over a data file page that is newer or torn: a range writes, for each byte it covers,
// that byte's value in the version it produces. So applying, in order, every diff of a page from
// version M+1 to N to a page whose every byte holds its value in SOME version from M to N yields
// exactly version N: a byte some diff covers ends with the value the last diff covering it gave,
// which no later version changed (a change would be covered by a later diff), and a byte no diff
// covers is the same in every version. Full images (Encoding 0) and the zero-filled target of
// Encoding 2 cover every byte. Recovery that
// replays to the end of the log needs nothing more; one that stops earlier may leave a mix.
//
// What Compute guarantees beyond validity: the diff is strictly smaller than the page(s) (else it
// returns -1 and the caller stores the full image), every byte that differs is inside a range,
// the gap between two ranges is either empty (a zero run split out of changed bytes) or at least
// 8 unchanged bytes (a shorter gap costs less as payload than a header), and a zero run inside
// changed bytes is split out as a negative range exactly when that saves bytes (a run longer than
// one header at either end of a changed range, longer than two headers in its middle).
//
// Compatibility: the layout is identified by the journal entry's Encoding byte, not by a version
// field here; a new diff layout takes a new Encoding value and old readers refuse it (R8).

/// <summary>
/// Computes and applies page diffs; see the FORMAT block above. Computing compares the two
/// versions a vector (then a machine word) at a time, so a page with a few changed fields diffs
/// in a small fraction of a microsecond. Applying validates every byte of the diff (it is read
/// from disk) before writing.
/// </summary>
internal static partial class PageDiff
{
    /// <summary>Bytes of a range header.</summary>
    public const int RangeHeaderSize = 8;

    // Range header (see the table above; same order).
    public const int OffsetOffset = 0;
    public const int LengthOffset = 4;

    /// <summary>Returned by Compute when the diff would not be smaller than the page(s).</summary>
    public const int NotSmaller = -1;
}
