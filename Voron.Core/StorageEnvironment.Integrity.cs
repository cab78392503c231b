using Voron.Transactions;
using Voron.Trees;

namespace Voron;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Walks the whole store as of the last commit and checks that every page below the
    /// allocation high-water mark is owned exactly once — by a tree (its pages and overflow runs),
    /// by the free-space map itself, or as a free page — that every tree is well-formed with exact
    /// counts, and that every page read passes its checksum. Throws
    /// <see cref="CorruptionException"/> or <see cref="InvalidOperationException"/> describing the
    /// first violation. Reads every page: for tests and offline checks, not a hot path.
    /// </summary>
    public IntegrityReport CheckIntegrity()
    {
        using var write = BeginWrite(); // excludes commits; the allocator view needs a write transaction
        var transaction = write.Low;
        var owner = new Dictionary<long, string>();
        void Claim(long first, int count, string what)
        {
            for (var page = first; page < first + count; page++)
            {
                if (page <= 0 || page >= transaction.Allocator.NextPageNumber)
                {
                    throw new InvalidOperationException($"Integrity: {what} owns page {page}, outside [1, {transaction.Allocator.NextPageNumber}).");
                }

                if (!owner.TryAdd(page, what))
                {
                    throw new InvalidOperationException($"Integrity: page {page} is owned twice, by {owner[page]} and by {what}.");
                }
            }
        }

        transaction.Root.Verify((page, count) => Claim(page, count, "the root tree"));
        var names = transaction.TreeNames();
        long entries = 0;
        foreach (var name in names)
        {
            var tree = transaction.OpenTree(name) ?? throw new InvalidOperationException($"Integrity: tree '{name}' is listed but cannot be opened.");
            tree.Verify((page, count) => Claim(page, count, $"tree '{name}'"));
            entries += tree.State.EntryCount;
        }

        foreach (var page in transaction.Allocator.OwnPages())
        {
            Claim(page, 1, "the free-space map");
        }

        long free = 0;
        for (long page = 1; page < transaction.Allocator.NextPageNumber; page++)
        {
            var isFree = transaction.Allocator.IsFree(page);
            if (isFree)
            {
                Claim(page, 1, "free space");
                free++;
            }
            else if (!owner.ContainsKey(page))
            {
                throw new InvalidOperationException($"Integrity: page {page} is neither free nor owned by anything (a leak).");
            }
        }

        return new IntegrityReport(transaction.Committed.TxId, names.Count, entries, transaction.Allocator.NextPageNumber, free);
    }
}

/// <summary>What <see cref="StorageEnvironment.CheckIntegrity"/> found.</summary>
public sealed record IntegrityReport(long TransactionId, int Trees, long Entries, long Pages, long FreePages);
