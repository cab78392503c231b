namespace Voron.Documents.Subscriptions;

/// <summary>Reads and writes the "@docs.subs" tree (SubscriptionRecord.cs) inside a transaction.</summary>
internal static class SubscriptionTable
{
    /// <summary>The record of subscription <paramref name="nameBytes"/>, or null when there is none.</summary>
    public static SubscriptionRecord? Find(ReadTransaction read, ReadOnlySpan<byte> nameBytes, string storePath)
    {
        var tree = read.OpenTree(SubscriptionRecord.Tree);
        return tree != null && tree.TryGet(nameBytes, out var value) ? SubscriptionRecord.Decode(nameBytes, value, storePath) : null;
    }

    /// <summary>
    /// The lowest position (SU3) of any subscription, or <see cref="long.MaxValue"/> when there is
    /// none: the change log keeps every change above it, so no subscription misses one to pruning.
    /// </summary>
    public static long LowestPosition(ReadTransaction read, string storePath)
    {
        var tree = read.OpenTree(SubscriptionRecord.Tree);
        var lowest = long.MaxValue;
        if (tree == null)
        {
            return lowest;
        }

        var iterator = tree.Iterate();
        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            lowest = Math.Min(lowest, SubscriptionRecord.Decode(iterator.Key, iterator.Value, storePath).Position);
        }

        return lowest;
    }
}
