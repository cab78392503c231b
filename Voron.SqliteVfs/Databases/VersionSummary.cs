namespace Voron.SqliteVfs.Databases;

/// <summary>
/// What one commit changed, without its bytes: the history V5 checks a stale writer's page
/// cache against (DatabaseState keeps a few thousand; the versions themselves hold 8 KiB blocks
/// and are let go once durable and unread).
/// </summary>
internal sealed class VersionSummary(long sequence, long[] blocks, bool lengthChanged, Block0Change block0)
{
    public long Sequence { get; } = sequence;

    /// <summary>V5: whether SQLite's cache of <paramref name="cachedBlocks"/> would be wrong after this commit.</summary>
    public bool ConflictsWithCache(IReadOnlySet<long> cachedBlocks)
    {
        if (lengthChanged || block0 >= Block0Change.HeaderOnly)
        {
            return true;
        }

        foreach (var block in blocks)
        {
            if (block != 0 && cachedBlocks.Contains(block))
            {
                return true;
            }
        }

        return false;
    }
}
