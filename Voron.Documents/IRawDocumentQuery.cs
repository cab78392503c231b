namespace Voron.Documents;

/// <summary>
/// A query over a collection's documents by JSON paths (the index path syntax: <c>address.city</c>,
/// <c>tags[]</c>), returning stored JSON as is. The same rules as <see cref="IDocumentQuery{T}"/>:
/// served by an index or refused, unless <see cref="AllowScan"/>. A condition on a multikey path
/// (<c>tags[]</c>) matches when any element does. Results hold pooled buffers: dispose each.
/// </summary>
public interface IRawDocumentQuery : IAsyncEnumerable<RawDocument>
{
    /// <summary>A condition on a string value (null: the value is null or missing; only <see cref="QueryOperator.Equal"/>).</summary>
    IRawDocumentQuery Where(string path, QueryOperator op, string? value);

    IRawDocumentQuery Where(string path, QueryOperator op, long value);

    IRawDocumentQuery Where(string path, QueryOperator op, double value);

    IRawDocumentQuery Where(string path, QueryOperator op, bool value);

    IRawDocumentQuery WhereStartsWith(string path, string prefix);

    IRawDocumentQuery WhereIdStartsWith(string prefix);

    IRawDocumentQuery OrderBy(string path, bool descending = false);

    IRawDocumentQuery Skip(int count);

    IRawDocumentQuery Take(int count);

    IRawDocumentQuery AllowScan();

    string Explain();

    Task<List<RawDocument>> ToListAsync(CancellationToken cancellationToken = default);

    Task<int> CountAsync(CancellationToken cancellationToken = default);

    Task<bool> AnyAsync(CancellationToken cancellationToken = default);
}
