using static Voron.Allocation.FreeSpaceFormat;

namespace Voron.Allocation;

// The pending-free half of the allocator (A5): runs freed by a transaction are appended to a chain
// of pending pages in commit order, and a later write transaction moves the runs whose freeing
// transaction no reader can still predate into the bitmap, oldest first. Because entries are in
// commit order, releasing stops at the first entry that is too new.
internal sealed partial class PageAllocator
{
    private void AppendPending(PendingRun run)
    {
        EnsureDirectory();
        var tail = ReadInt64(_pages.GetPage(DirectoryPage), PendingTailOffset);
        if (tail != 0)
        {
            var tailPage = _pages.GetPage(tail);
            var entries = ReadInt32(tailPage, EntryCountOffset);
            var last = ReadEntry(tailPage, entries - 1);
            if (last.FreedBy == run.FreedBy && last.FirstPage + last.PageCount == run.FirstPage && last.PageCount <= int.MaxValue - run.PageCount)
            {
                // Adjacent runs freed by one transaction (a deleted tree's pages) share an entry.
                WriteEntry(_pages.ModifyPage(tail), entries - 1, last with { PageCount = last.PageCount + run.PageCount });
                Track(run);
                return;
            }

            if (entries < MaxPendingEntries)
            {
                var modified = _pages.ModifyPage(tail);
                WriteEntry(modified, entries, run);
                WriteInt32(modified, EntryCountOffset, entries + 1);
                Track(run);
                return;
            }
        }

        var page = Take(1); // A2: an ordinary allocation; it never frees or appends
        var fresh = _pages.CreatePage(page, 1);
        InitPending(fresh);
        WriteEntry(fresh, 0, run);
        WriteInt32(fresh, EntryCountOffset, 1);
        if (tail != 0)
        {
            WriteInt64(_pages.ModifyPage(tail), NextOffset, page);
        }

        var directory = _pages.ModifyPage(DirectoryPage);
        if (tail == 0)
        {
            WriteInt64(directory, PendingHeadOffset, page);
        }

        WriteInt64(directory, PendingTailOffset, page);
        WriteInt32(directory, PendingPagesOffset, ReadInt32(directory, PendingPagesOffset) + 1);
        Track(run);
    }

    private void Track(PendingRun run)
    {
        _pendingPages += run.PageCount;
        _oldestPendingTx = Math.Min(_oldestPendingTx, run.FreedBy);
    }

    /// <summary>Moves every pending run freed by a transaction up to <paramref name="horizon"/> into the bitmap (A5).</summary>
    private void ReleasePending(long horizon)
    {
        var directory = _pages.GetPage(DirectoryPage);
        var head = ReadInt64(directory, PendingHeadOffset);
        var chainPages = ReadInt32(directory, PendingPagesOffset);
        var changed = false;
        while (head != 0)
        {
            var page = _pages.GetPage(head);
            var entries = ReadInt32(page, EntryCountOffset);
            var next = ReadInt64(page, NextOffset);
            var runs = new List<PendingRun>(entries);
            for (var i = 0; i < entries; i++)
            {
                var run = ReadEntry(page, i);
                if (run.FreedBy > horizon)
                {
                    break;
                }

                runs.Add(run);
            }

            if (runs.Count == 0)
            {
                break;
            }

            changed = true;
            foreach (var run in runs)
            {
                ChangeBits(run.FirstPage, run.PageCount, free: true);
                _pendingPages -= run.PageCount;
            }

            if (runs.Count < entries)
            {
                var kept = _pages.ModifyPage(head);
                var tail = kept[(EntriesOffset + EntrySize * runs.Count)..(EntriesOffset + EntrySize * entries)];
                tail.CopyTo(kept[EntriesOffset..]);
                kept[(EntriesOffset + EntrySize * (entries - runs.Count))..(EntriesOffset + EntrySize * entries)].Clear();
                WriteInt32(kept, EntryCountOffset, entries - runs.Count);
                break;
            }

            // The emptied pending page is free at once: no reader reads free-space pages (A2).
            _pages.DiscardPage(head);
            ChangeBits(head, 1, free: true);
            chainPages--;
            head = next;
        }

        if (!changed)
        {
            return;
        }

        var modified = _pages.ModifyPage(DirectoryPage);
        WriteInt64(modified, PendingHeadOffset, head);
        WriteInt32(modified, PendingPagesOffset, chainPages);
        if (head == 0)
        {
            WriteInt64(modified, PendingTailOffset, 0);
        }

        _oldestPendingTx = head == 0 ? long.MaxValue : ReadEntry(_pages.GetPage(head), 0).FreedBy;
    }
}
