using System.Text;
using Voron.Documents.Changes;
using Voron.Documents.Storage;

namespace Voron.Documents.Diagnostics;

internal sealed partial class IntegrityCheck
{
    /// <summary>L4, for the log as a whole: every entry valid (CF6) and at most the store's version.</summary>
    private void CheckChangeLog(ReadTransaction read, long lastVersion)
    {
        var changes = read.OpenTree(DocumentTrees.Changes);
        if (changes == null)
        {
            return;
        }

        var iterator = changes.Iterate();
        if (iterator.SeekLast())
        {
            var entry = ChangeLog.Parse(iterator.Key, iterator.Value, Path);
            if (entry.Version > lastVersion)
            {
                throw Violation($"the change log holds version {entry.Version}, above the store's last version {lastVersion} (L4).");
            }
        }

        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            ChangeLog.Parse(iterator.Key, iterator.Value, Path);
        }
    }

    /// <summary>L4, for one document: while the feed is on, its version, if above "feed.from", has its Stored entry.</summary>
    private void CheckLogged(ReadTransaction read, Tree? meta, long version, ReadOnlySpan<byte> id, ReadOnlySpan<byte> collection)
    {
        if (meta == null || !meta.TryGet(DocumentTrees.FeedOnKey, out var on) || on.Length != 1 || on[0] != 1
            || version <= DocumentTrees.ReadInt64(meta, DocumentTrees.FeedFromKey, Path))
        {
            return;
        }

        Span<byte> key = stackalloc byte[8];
        ChangeLog.WriteKey(key, version);
        if (read.OpenTree(DocumentTrees.Changes) is not { } changes || !changes.TryGet(key, out var value))
        {
            throw Violation($"document '{Encoding.UTF8.GetString(id)}' has version {version}, above \"feed.from\", but the change log has no entry for it (L4).");
        }

        var entry = ChangeLog.Parse(key, value, Path);
        if (entry.Kind != DocumentChangeKind.Stored || !entry.Id.SequenceEqual(id) || !entry.Collection.SequenceEqual(collection))
        {
            throw Violation($"the change log's entry at version {version} is {entry.Kind} of '{Encoding.UTF8.GetString(entry.Id)}' in '{Encoding.UTF8.GetString(entry.Collection)}', but document '{Encoding.UTF8.GetString(id)}' holds that version (L4).");
        }
    }
}
