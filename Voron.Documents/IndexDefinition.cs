using System.Linq.Expressions;
using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Indexing;
using Voron.Documents.Serialization;
using Voron.Documents.Storage;

namespace Voron.Documents;

/// <summary>
/// A secondary index on a collection: one or more JSON paths (a compound index when several),
/// optionally unique. Entries are kept in the same transaction as the documents, so a query
/// sees every saved change. Apply it with <see cref="DocumentStore.EnsureIndexAsync"/>.
/// </summary>
/// <remarks>
/// Paths are JSON property names joined by dots; <c>[]</c> after a name indexes each element of
/// an array (a multikey index: one entry per element; at most one such path per index).
/// Typed definitions come from members: <c>IndexDefinition.For(MyJson.Default.User, "users_by_email", u =&gt; u.Email)</c>;
/// a collection member (<c>u =&gt; u.Tags</c>) is multikey, and <c>o =&gt; o.Lines.Select(l =&gt; l.Sku)</c>
/// indexes a member of each element.
/// </remarks>
public sealed class IndexDefinition : IEquatable<IndexDefinition>
{
    /// <summary>An index on raw documents by JSON paths.</summary>
    /// <param name="collection">The collection it indexes.</param>
    /// <param name="name">Its name, unique within the collection: 1 to 64 ASCII letters, digits, '_', '-' or '.'.</param>
    /// <param name="paths">1 to 8 JSON paths, in key order (equality on the first ones, then a range or the sort order on the next).</param>
    public IndexDefinition(string collection, string name, params IReadOnlyList<string> paths)
    {
        DocumentNames.CollectionBytes(collection, nameof(collection));
        DocumentNames.ValidateIndexName(name, nameof(name));
        ArgumentNullException.ThrowIfNull(paths);
        if (paths.Count is 0 or > DocumentLimits.MaxIndexPaths)
        {
            throw new ArgumentException($"An index has 1 to {DocumentLimits.MaxIndexPaths} paths; got {paths.Count}.", nameof(paths));
        }

        var parsed = paths.Select(p => JsonPath.Parse(p, nameof(paths))).ToArray();
        if (parsed.Select(p => p.Text).Distinct(StringComparer.Ordinal).Count() != parsed.Length)
        {
            throw new ArgumentException($"Index '{name}' names a path twice.", nameof(paths));
        }

        if (parsed.Count(p => p.IsMultikey) > 1)
        {
            throw new ArgumentException($"Index '{name}' has more than one multikey ('[]') path; an index may have at most one, so a document's entries are one per element, not a product.", nameof(paths));
        }

        Collection = collection;
        Name = name;
        Paths = [.. parsed.Select(p => p.Text)];
        JsonPaths = parsed;
    }

    /// <summary>The collection.</summary>
    public string Collection { get; }

    /// <summary>The index's name.</summary>
    public string Name { get; }

    /// <summary>The JSON paths, in key order.</summary>
    public IReadOnlyList<string> Paths { get; }

    /// <summary>Whether no two documents may have the same values (documents with a null or missing value are exempt).</summary>
    public bool IsUnique { get; private init; }

    /// <summary>Whether a path indexes array elements ('[]').</summary>
    public bool IsMultikey => JsonPaths.Any(p => p.IsMultikey);

    internal IReadOnlyList<JsonPath> JsonPaths { get; }

    /// <summary>This definition, unique: a save that would give two documents the same values throws <see cref="UniqueConstraintException"/>.</summary>
    public IndexDefinition AsUnique() => new(Collection, Name, Paths) { IsUnique = true };

    /// <summary>
    /// An index on members of a document type, named <paramref name="name"/>, in the type's
    /// collection. Each member is a chain from the document (<c>u =&gt; u.Address.City</c>), a
    /// collection (multikey), or <c>x =&gt; x.Items.Select(i =&gt; i.Member)</c>.
    /// </summary>
    public static IndexDefinition For<T>(JsonTypeInfo<T> typeInfo, string name, params Expression<Func<T, object?>>[] members)
    {
        ArgumentNullException.ThrowIfNull(typeInfo);
        ArgumentNullException.ThrowIfNull(members);
        var document = DocumentType.For(typeInfo);
        var paths = new List<string>();
        foreach (var member in members)
        {
            ArgumentNullException.ThrowIfNull(member, nameof(members));
            var resolved = MemberPaths.TryResolve(member.Body, member.Parameters[0], typeInfo)
                ?? throw new ArgumentException($"'{member}' is not a member of {typeof(T).Name}; write x => x.Member, x => x.Member.Inner or x => x.Items.Select(i => i.Member).", nameof(members));
            if (resolved.IsId)
            {
                throw new ArgumentException($"'{member}' is the document id; ids are indexed already (query them directly).", nameof(members));
            }

            if (!resolved.IsCollection && resolved.TypeInfo.Kind != JsonTypeInfoKind.None)
            {
                throw new ArgumentException($"'{member}' is serialized as a JSON {resolved.TypeInfo.Kind}; index a member holding a value (string, number, boolean) or a collection of values.", nameof(members));
            }

            paths.Add(resolved.IsCollection && !resolved.Path.EndsWith("[]", StringComparison.Ordinal) ? resolved.Path + "[]" : resolved.Path);
        }

        return new IndexDefinition(document.Collection, name, paths);
    }

    /// <summary>Whether both define the same index: same collection, name, uniqueness and paths in the same order.</summary>
    public bool Equals(IndexDefinition? other) =>
        other is not null && Collection == other.Collection && Name == other.Name && IsUnique == other.IsUnique && Paths.SequenceEqual(other.Paths);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as IndexDefinition);

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(Collection, Name, IsUnique, Paths.Count);

    /// <summary>The index as text, for messages: <c>unique index 'byEmail' on users (email)</c>.</summary>
    public override string ToString() => $"{(IsUnique ? "unique " : "")}index '{Name}' on {Collection} ({string.Join(", ", Paths)})";
}
