using System.Text;
using Voron.Documents;
using Voron.Documents.Indexing;

namespace Voron.SqliteVfs.Documents;

/// <summary>
/// SD5: a change's unique-index values checked when the statement runs, against what the
/// transaction sees (the snapshot's index, minus documents changed since, plus those changes), so a
/// violation fails the statement with SQLITE_CONSTRAINT; the commit checks again (WriteBatch).
/// </summary>
internal static class UniqueIndexes
{
    /// <summary>
    /// Throws SQLITE_CONSTRAINT for a unique value another document holds; with
    /// <paramref name="replace"/> (INSERT OR REPLACE, REPLACE) returns those documents' ids
    /// instead, for the caller to delete, as SQLite's REPLACE deletes the rows in the way.
    /// </summary>
    public static List<string>? Check(DocumentView view, PendingDocument change, bool replace = false)
    {
        List<string>? conflicting = null;
        void Conflict(IndexRuntime index, ReadOnlySpan<byte> values, string other)
        {
            if (!replace)
            {
                throw Violation(index, values, change.Id, other);
            }

            conflicting ??= [];
            if (!conflicting.Contains(other))
            {
                conflicting.Add(other);
            }
        }

        var indexes = view.Store.Catalog.For(change.Collection);
        if (indexes == null || change.Json == null || !indexes.Indexes.Any(i => i.Definition.IsUnique))
        {
            return null;
        }

        var extractor = indexes.CreateExtractor();
        var entries = indexes.ComputeEntries(change.Json, change.IdBytes, extractor);
        var changed = view.OverlayIds(change.Collection);
        for (var x = 0; x < indexes.Indexes.Count; x++)
        {
            var index = indexes.Indexes[x];
            if (!index.Definition.IsUnique)
            {
                continue;
            }

            foreach (var key in entries[x])
            {
                var values = key.AsSpan(0, key.Length - change.IdBytes.Length);
                if (HasNull(values))
                {
                    continue;
                }

                foreach (var held in view.Stored.EntriesWithPrefix(index, values.ToArray()))
                {
                    var other = Encoding.UTF8.GetString(held.AsSpan(values.Length));
                    if (other != change.Id && !changed.Contains(other))
                    {
                        Conflict(index, values, other);
                    }
                }

                foreach (var otherId in changed)
                {
                    if (otherId == change.Id || view.Find(otherId, Encoding.UTF8.GetBytes(otherId)) is not { } other || other.Collection != change.Collection)
                    {
                        continue;
                    }

                    var otherEntries = indexes.ComputeEntries(other.Json, Encoding.UTF8.GetBytes(otherId), extractor)[x];
                    foreach (var otherKey in otherEntries)
                    {
                        if (otherKey.AsSpan().StartsWith(values) && IndexKey.ValuesLength(otherKey, index.ComponentCount) == values.Length)
                        {
                            Conflict(index, values, otherId);
                        }
                    }
                }
            }
        }
        return conflicting;
    }

    private static bool HasNull(ReadOnlySpan<byte> values)
    {
        for (var rest = values; !rest.IsEmpty; rest = rest[IndexKey.ValueLength(rest)..])
        {
            if (rest[0] == IndexKey.Null)
            {
                return true;
            }
        }

        return false;
    }

    private static Interop.VirtualTables.VirtualTableException Violation(IndexRuntime index, ReadOnlySpan<byte> values, string id, string existing)
    {
        var error = new UniqueConstraintException(index.Definition.Collection, index.Name, IndexKey.DescribeValues(values, index.ComponentCount), id, existing);
        return new Interop.VirtualTables.VirtualTableException(Interop.SqliteConstants.Constraint,
            $"UNIQUE constraint failed: index {index.Name} on {index.Definition.Collection}: value {error.Value} of '{id}' is held by '{existing}'.", error);
    }
}
