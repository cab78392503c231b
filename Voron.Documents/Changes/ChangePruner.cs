using Voron.Documents.Storage;

namespace Voron.Documents.Changes;

/// <summary>
/// Retention of the change log: deletes its oldest entries in merged operations of bounded size.
/// </summary>
/// <remarks>
/// CF5. Pruning deletes entries from the oldest up, stopping at the first one written at or after
///      the cutoff (now - Retention) or above the lowest subscription position, and raises
///      "feed.from" to the last version it deleted in the same transaction: a feed asked for an
///      older position gets ChangeFeedPositionException, never a silent gap.
/// </remarks>
internal static class ChangePruner
{
    /// <summary>Entries one merged operation deletes at most: writers wait behind it only briefly.</summary>
    public const int StepSize = 1024;

    /// <summary>One step (CF5), in the merger's transaction: returns how many entries it deleted.</summary>
    public static int PruneStep(WriteTransaction transaction, long cutoffTicks, Func<ReadTransaction, long>? lowestPosition, int max, string storePath)
    {
        var changes = transaction.OpenTree(DocumentTrees.Changes);
        if (changes == null)
        {
            return 0;
        }

        var limit = lowestPosition?.Invoke(transaction) ?? long.MaxValue;
        var doomed = new List<byte[]>();
        long last = 0;
        var iterator = changes.Iterate();
        for (var more = iterator.SeekFirst(); more && doomed.Count < max; more = iterator.MoveNext())
        {
            var entry = ChangeLog.Parse(iterator.Key, iterator.Value, storePath);
            if (entry.Ticks >= cutoffTicks || entry.Version > limit)
            {
                break;
            }

            doomed.Add(iterator.Key.ToArray());
            last = entry.Version;
        }

        if (doomed.Count == 0)
        {
            return 0;
        }

        foreach (var key in doomed)
        {
            changes.Delete(key);
        }

        var meta = transaction.CreateTree(DocumentTrees.Meta);
        if (DocumentTrees.ReadInt64(meta, DocumentTrees.FeedFromKey, storePath) < last)
        {
            DocumentTrees.WriteInt64(meta, DocumentTrees.FeedFromKey, last); // CF4, CF5
        }

        return doomed.Count;
    }
}
