using Voron.Paging;

namespace Voron.Journal;

/// <summary>
/// R10 (JournalRecord.cs), IP5 (Transactions/InPlacePages.cs): what recovery checks of the
/// in-data-file entries it replays. An entry's pages stay to be checked until a later record of
/// the replay writes any of them (that record defines them from then on); the rest are checked
/// against their checksums once the replay has ended, before the data file is synced and the
/// header moves past them.
/// </summary>
internal sealed class InDataFileChecks
{
    private readonly SortedSet<long> _starts = [];
    private readonly Dictionary<long, Named> _named = [];
    private int _longestRun;

    private readonly record struct Named(int PageCount, uint Checksum, string File, long Offset, long TransactionId);

    /// <summary>Entries still to be checked (tests).</summary>
    public int Count => _named.Count;

    /// <summary>A replayed entry writes pages [first, first + count): no earlier entry's checksum defines them any more.</summary>
    public void Overwritten(long first, int count)
    {
        if (_named.Count == 0)
        {
            return;
        }

        // Named runs do not overlap one another (a later one drops those it overlaps), so the
        // runs that may reach `first` start at most _longestRun - 1 pages before it.
        var from = Math.Max(0, first - _longestRun + 1);
        var to = first + count - 1;
        if (_starts.Min > to || _starts.Max < from)
        {
            return;
        }

        List<long>? dropped = null;
        foreach (var start in _starts.GetViewBetween(from, to))
        {
            if (start + _named[start].PageCount > first)
            {
                (dropped ??= []).Add(start);
            }
        }

        foreach (var start in dropped ?? [])
        {
            _starts.Remove(start);
            _named.Remove(start);
        }
    }

    /// <summary>An in-data-file entry of record <paramref name="transactionId"/>: its pages are to hold the checksum the entry stores.</summary>
    public void Name(RecoveredPage page, string file, long offset, long transactionId)
    {
        Overwritten(page.PageNumber, page.PageCount);
        var checksum = System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(page.Bytes.Span);
        _named[page.PageNumber] = new Named(page.PageCount, checksum, file, offset, transactionId);
        _starts.Add(page.PageNumber);
        _longestRun = Math.Max(_longestRun, page.PageCount);
    }

    /// <summary>Checks every entry still named against the data file's bytes; the first that fails is a <see cref="CorruptionException"/>.</summary>
    public void Verify(Pager pager)
    {
        byte[] buffer = [];
        foreach (var first in _starts)
        {
            var named = _named[first];
            var length = named.PageCount * Constants.PageSize; // <= MaxEntryPageCount pages (R8): fits an int
            if (buffer.Length < length)
            {
                buffer = new byte[length];
            }

            var bytes = buffer.AsSpan(0, length);
            pager.ReadRaw(first, bytes); // past the file's end: zeros, which fail the checksum
            var actual = JournalRecord.InDataFileChecksum(bytes);
            if (actual != named.Checksum)
            {
                throw new CorruptionException(pager.Path, first * Constants.PageSize,
                    $"R10: pages [{first}, {first + named.PageCount}) of the data file do not hold the checksum ({named.Checksum:X8}, found {actual:X8}) that record tx " +
                    $"{named.TransactionId} in '{named.File}' at offset {named.Offset} gives for them. They were written in place and synced before that record " +
                    "(IP2), so no crash explains it: the data file was damaged or replaced after that commit. Restore the store from a backup");
            }
        }
    }
}
