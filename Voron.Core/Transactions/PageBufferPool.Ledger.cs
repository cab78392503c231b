using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Voron.Transactions;

/// <summary>
/// PB5, Debug builds: where each pooled buffer is in its life, checked at every move, so a break
/// of PB1 throws where it happens rather than showing later as a poisoned read (PB4) or, once the
/// buffer is handed out again, as another page's bytes.
/// </summary>
internal sealed partial class PageBufferPool
{
    private enum Place
    {
        HandedOut, // a transaction's private copy (Rent)
        Published, // a page version's bytes (PageTable.Publish)
        Retired,   // left the page table; waits for its generation (Retire)
        Free,      // may be handed out (ReleaseRetired)
        Dropped,   // left to the garbage collector (PB3); never seen here again
    }

    private sealed class Entry
    {
        public Place Place;
    }

    // Only written in Debug builds; a buffer the collector takes leaves it with its entry.
    private readonly ConditionalWeakTable<byte[], Entry> _ledger = new();
    private readonly object _ledgerLock = new();

    /// <summary>PB5: <paramref name="buffer"/> is a page version's bytes from here on; it must be a copy nobody else holds.</summary>
    [Conditional("DEBUG")]
    internal void NotePublished(byte[] buffer)
    {
        if (IsPooled(buffer.Length))
        {
            Move(buffer, Place.Published, "published as a page version", Place.HandedOut); // not from this pool (a test's array): no entry, nothing to check
        }
    }

    [Conditional("DEBUG")]
    private void NoteHandedOut(byte[] buffer, bool recycled)
    {
        if (recycled)
        {
            Move(buffer, Place.HandedOut, "handed out again", Place.Free);
            return;
        }

        lock (_ledgerLock)
        {
            _ledger.AddOrUpdate(buffer, new Entry { Place = Place.HandedOut });
        }
    }

    [Conditional("DEBUG")]
    private void NoteRetired(byte[] buffer) => Move(buffer, Place.Retired, "retired", Place.Published);

    [Conditional("DEBUG")]
    private void NoteLeft(byte[] buffer, Place to) => Move(buffer, to, to == Place.Free ? "released" : "dropped", Place.Retired);

    /// <summary>Moves <paramref name="buffer"/> to <paramref name="to"/>, throwing unless it is at <paramref name="from"/> (or unknown here).</summary>
    private void Move(byte[] buffer, Place to, string what, Place from)
    {
        lock (_ledgerLock)
        {
            if (_ledger.TryGetValue(buffer, out var entry))
            {
                if (entry.Place != from)
                {
                    throw new InvalidOperationException(
                        $"PB5: a page buffer was {what} while {Describe(entry.Place)}, not {Describe(from)}: a break of PB1 (a buffer shared by two owners, retired twice, or released while a transaction could still read it).");
                }

                entry.Place = to;
            }
            else if (from != Place.Free)
            {
                _ledger.AddOrUpdate(buffer, new Entry { Place = to });
            }
            else
            {
                throw new InvalidOperationException("PB5: a page buffer was handed out again that was never released here.");
            }
        }
    }

    private static string Describe(Place place) => place switch
    {
        Place.HandedOut => "a transaction's private copy",
        Place.Published => "a page version's bytes",
        Place.Retired => "retired",
        Place.Free => "free",
        _ => "dropped",
    };
}
