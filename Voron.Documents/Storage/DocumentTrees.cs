using System.Buffers.Binary;
using System.Text;

namespace Voron.Documents.Storage;

// FORMAT: document store layout, version 3 — the named trees Voron.Documents keeps in a
// StorageEnvironment (tree names are UTF-8; every name starts with "@docs" so a store opened
// over an environment that also holds other trees does not collide with them).
//
//   TREE                               KEY                         VALUE
//   @docs                              document id (1..512 B)      document record (DocumentRecord.cs)
//   @docs.meta                         "format"                    int32 LE: StoreFormat (3)
//                                      "version"                   int64 LE: the last document version handed out
//                                      "gen"                       int64 LE: index catalog generation (raised by every
//                                                                  index definition, drop and build completion)
//                                      "ctr/<collection>"          int64 LE: the largest n of any id "<collection>/<n>"
//                                                                  stored, in any collection (generated ids continue
//                                                                  above it; stores written before this rule may
//                                                                  hold such ids of other collections above it)
//                                      "idx/<collection>/<index>"  index definition record (Indexing/IndexDefinitionRecord.cs)
//                                      "feed.from"                 int64 LE: the oldest position a change feed may start
//                                                                  after: the log holds every change above it (pruning
//                                                                  and turning the feed on raise it; format 2)
//                                      "feed.on"                   1 B: 1 while writes append to @docs.changes, 0 while
//                                                                  the store is open with the feed off (format 2)
//   @docs.changes                      version, int64 BIG-endian   change entry (Changes/ChangeLog.cs): one per stored or
//                                                                  deleted document, keyed by the version the write took
//   @docs.subs                         subscription name, UTF-8    subscription record (Subscriptions/SubscriptionRecord.cs;
//                                                                  created by the first subscription; format 2)
//   @docs.col/<collection>             document id                 empty: the collection's members, in id order
//   @docs.idx/<collection>/<index>     encoded values ++ id        empty: one entry per indexed value (Indexing/IndexKey.cs)
//   @docs.expires (format 2)           expiry ticks, int64         empty: one entry per record with the Expires flag
//                                      BIG-endian (8 B) ++ id      (DocumentRecord.cs), in expiry order (Storage/ExpiryIndex.cs)
//
// Rules the integrity check (DocumentStore.CheckIntegrityAsync) verifies:
//   L1. Every @docs record's collection names a @docs.col tree that holds its id, and every id
//       in a @docs.col tree has a record of that collection in @docs (membership is exact).
//   L2. Every index tree holds exactly the entries its definition computes from the
//       collection's documents (IndexEntries), no more, no fewer.
//   L3. Versions are unique across the store and at most "version" (a delete takes one too, for
//       its change entry); for every id of the shape "<collection>/<n>" in a collection,
//       n <= "ctr/<collection>".
//   L4. Every @docs.changes entry is valid (Changes/ChangeLog.cs, CF6) and its key is at most
//       "version"; while "feed.on" is 1, every document whose version is above
//       "feed.from" has a Stored entry at its version naming its id and collection.
//   L5. @docs.expires holds exactly one entry per @docs record with the Expires flag, its key the
//       record's expiry ticks and id, and nothing else (XE2).
// Compatibility: "format" is written when the store is first opened; a store whose format is
// above StoreFormat is refused (FormatVersionException). Upgrades run on open (StoreLayout.cs), in
// one write transaction (Changes/ChangeFeedFormat.cs), and end with "format" = 3:
//   1 -> 2: creates @docs.changes, sets "feed.from" to "version" (the history before the upgrade
//           is not in the log) and "feed.on". Format 1 had no log, and its deletes took no version.
//   2 -> 3: index entries read a property name repeated in one object by its first occurrence, as
//           SQLite's json_extract does (Indexing/JsonPathExtractor.cs); format 2's read the last.
//           The entries of the documents where the two differ are rewritten
//           (Indexing/FirstOccurrenceUpgrade.cs); the key encoding (Indexing/IndexKey.cs) is the same.

/// <summary>Names of the trees and meta keys of the document store; see the FORMAT block above.</summary>
internal static class DocumentTrees
{
    public const int StoreFormat = 3;

    public const string Documents = "@docs";
    public const string Meta = "@docs.meta";
    public const string CollectionPrefix = "@docs.col/";
    public const string IndexPrefix = "@docs.idx/";
    public const string Changes = "@docs.changes";
    public const string Expires = "@docs.expires";

    public static ReadOnlySpan<byte> FormatKey => "format"u8;
    public static ReadOnlySpan<byte> VersionKey => "version"u8;
    public static ReadOnlySpan<byte> GenerationKey => "gen"u8;
    public static ReadOnlySpan<byte> CounterPrefix => "ctr/"u8;
    public static ReadOnlySpan<byte> IndexDefinitionPrefix => "idx/"u8;
    public static ReadOnlySpan<byte> FeedFromKey => "feed.from"u8;
    public static ReadOnlySpan<byte> FeedOnKey => "feed.on"u8;

    public static string CollectionTree(string collection) => CollectionPrefix + collection;

    public static string IndexTree(string collection, string index) => IndexPrefix + collection + "/" + index;

    public static byte[] CounterKey(string collection) => [.. CounterPrefix, .. Encoding.UTF8.GetBytes(collection)];

    public static byte[] IndexDefinitionKey(string collection, string index) =>
        [.. IndexDefinitionPrefix, .. Encoding.UTF8.GetBytes(collection), (byte)'/', .. Encoding.UTF8.GetBytes(index)];

    public static long ReadInt64(Tree meta, ReadOnlySpan<byte> key, string storePath)
    {
        if (!meta.TryGet(key, out var value))
        {
            return 0;
        }

        if (value.Length != 8)
        {
            throw new CorruptionException(storePath, 0, $"tree '{Meta}' key '{Encoding.UTF8.GetString(key)}' holds {value.Length} bytes; an int64 takes 8.");
        }

        return BinaryPrimitives.ReadInt64LittleEndian(value);
    }

    public static void WriteInt64(Tree meta, ReadOnlySpan<byte> key, long value)
    {
        Span<byte> bytes = stackalloc byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(bytes, value);
        meta.Put(key, bytes);
    }
}
