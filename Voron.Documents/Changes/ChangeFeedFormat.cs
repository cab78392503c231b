using System.Buffers.Binary;
using Voron.Documents.Storage;

namespace Voron.Documents.Changes;

/// <summary>
/// The store's layout version and feed state at open (Storage/DocumentTrees.cs FORMAT block):
/// writes format 3 to a new store, upgrades a format-1 or format-2 store, and records whether the
/// feed is on.
/// </summary>
/// <remarks>
/// CF4. "feed.from" never falls, and the log holds every change above it: a new store starts it at
///      0; the upgrade from format 1 and turning the feed on again set it to "version" (the
///      changes before are not logged); pruning raises it to the last version it deleted (CF5).
/// </remarks>
internal static class ChangeFeedFormat
{
    /// <summary>Whether opening with the feed <paramref name="feedOn"/> must write (format, upgrade, feed state), read in <paramref name="read"/>.</summary>
    public static bool NeedsWrite(ReadTransaction read, bool feedOn, string storePath)
    {
        if (read.OpenTree(DocumentTrees.Meta) is not { } meta)
        {
            return true;
        }

        return Format(meta, storePath) != DocumentTrees.StoreFormat || IsOn(meta, storePath) != feedOn;
    }

    /// <summary>
    /// The layout a store over a read replica finds, written by its primary (I8): null when the
    /// primary has not opened a document store yet; else its format version (1 to 3, anything else
    /// refused) and whether its feed is on.
    /// </summary>
    public static (int Format, bool FeedOn)? Read(ReadTransaction read, string storePath) =>
        read.OpenTree(DocumentTrees.Meta) is { } meta ? (Format(meta, storePath), IsOn(meta, storePath)) : null;

    /// <summary>Writes what <see cref="NeedsWrite"/> found missing, in <paramref name="write"/> (one transaction: the upgrade is all or nothing).</summary>
    public static void Apply(WriteTransaction write, bool feedOn, string storePath)
    {
        var meta = write.CreateTree(DocumentTrees.Meta);
        var format = meta.TryGet(DocumentTrees.FormatKey, out _) ? Format(meta, storePath) : 0;
        var version = DocumentTrees.ReadInt64(meta, DocumentTrees.VersionKey, storePath);
        if (format == 0)
        {
            write.CreateTree(DocumentTrees.Documents); // a new store
        }

        if (format < 2)
        {
            // New store: version is 0. Format 1: its history is not in the log (CF4).
            write.CreateTree(DocumentTrees.Changes);
            DocumentTrees.WriteInt64(meta, DocumentTrees.FeedFromKey, version);
        }
        else if (feedOn && !IsOn(meta, storePath))
        {
            // Changes made while it was off are not in the log (CF4).
            var from = DocumentTrees.ReadInt64(meta, DocumentTrees.FeedFromKey, storePath);
            DocumentTrees.WriteInt64(meta, DocumentTrees.FeedFromKey, Math.Max(from, version));
        }

        if (format is 1 or 2)
        {
            Indexing.FirstOccurrenceUpgrade.Apply(write, storePath); // format 3's reading of repeated members
        }

        if (format != DocumentTrees.StoreFormat)
        {
            Span<byte> bytes = stackalloc byte[4];
            BinaryPrimitives.WriteInt32LittleEndian(bytes, DocumentTrees.StoreFormat);
            meta.Put(DocumentTrees.FormatKey, bytes);
        }

        meta.Put(DocumentTrees.FeedOnKey, [feedOn ? (byte)1 : (byte)0]);
    }

    /// <summary>The store's layout version: 1 or 2 (upgraded at open) or 3; anything else is refused.</summary>
    private static int Format(Tree meta, string storePath)
    {
        if (!meta.TryGet(DocumentTrees.FormatKey, out var value) || value.Length != 4)
        {
            throw new CorruptionException(storePath, 0, $"tree '{DocumentTrees.Meta}' has no valid format key.");
        }

        var format = BinaryPrimitives.ReadInt32LittleEndian(value);
        if (format is < 1 or > DocumentTrees.StoreFormat)
        {
            throw new FormatVersionException(storePath, format, DocumentTrees.StoreFormat);
        }

        return format;
    }

    private static bool IsOn(Tree meta, string storePath)
    {
        if (!meta.TryGet(DocumentTrees.FeedOnKey, out var value))
        {
            return false;
        }

        if (value.Length != 1 || value[0] > 1)
        {
            throw new CorruptionException(storePath, 0, $"tree '{DocumentTrees.Meta}' key 'feed.on' breaks CF4's layout (1 byte, 0 or 1; it holds {value.Length} bytes).");
        }

        return value[0] == 1;
    }
}
