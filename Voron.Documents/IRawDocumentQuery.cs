namespace Voron.Documents;

/// <summary>
/// A query over a collection's documents by JSON paths (the index path syntax: <c>address.city</c>,
/// <c>tags[]</c>), returning stored JSON as is. The same rules as <see cref="IDocumentQuery{T}"/>:
/// served by an index or refused, unless <see cref="AllowScan"/>. A condition on a multikey path
/// (<c>tags[]</c>) matches when any element does. Results hold pooled buffers: dispose each.
/// Each method returns a new query and leaves this one as it was.
/// </summary>
public interface IRawDocumentQuery : IAsyncEnumerable<RawDocument>
{
    /// <summary>A condition on a string value (null: the value is null or missing; only <see cref="QueryOperator.Equal"/>).</summary>
    IRawDocumentQuery Where(string path, QueryOperator op, string? value);

    /// <summary>A condition on a number, compared numerically.</summary>
    IRawDocumentQuery Where(string path, QueryOperator op, long value);

    /// <summary>A condition on a number, compared numerically; <see cref="ArgumentOutOfRangeException"/> when <paramref name="value"/> is not finite.</summary>
    IRawDocumentQuery Where(string path, QueryOperator op, double value);

    /// <summary>A condition on a boolean.</summary>
    IRawDocumentQuery Where(string path, QueryOperator op, bool value);

    /// <summary>Only documents whose string at <paramref name="path"/> starts with <paramref name="prefix"/> (ordinal).</summary>
    IRawDocumentQuery WhereStartsWith(string path, string prefix);

    /// <summary>Only documents whose id starts with <paramref name="prefix"/> (ordinal).</summary>
    IRawDocumentQuery WhereIdStartsWith(string prefix);

    /// <summary>Orders by the value at <paramref name="path"/>; a second call adds a later sort key.</summary>
    IRawDocumentQuery OrderBy(string path, bool descending = false);

    /// <summary>Skips the first <paramref name="count"/> results.</summary>
    IRawDocumentQuery Skip(int count);

    /// <summary>Returns at most <paramref name="count"/> results.</summary>
    IRawDocumentQuery Take(int count);

    /// <summary>Lets this query read every document of the collection (and sort in memory) when no index serves it.</summary>
    IRawDocumentQuery AllowScan();

    /// <summary>How the query runs: the index (or id range, or scan) it reads, its bounds, and what is checked per document.</summary>
    string Explain();

    /// <summary>Runs the query and returns every result, in order; dispose each.</summary>
    Task<List<RawDocument>> ToListAsync(CancellationToken cancellationToken = default);

    /// <summary>The number of results.</summary>
    Task<int> CountAsync(CancellationToken cancellationToken = default);

    /// <summary>Whether the query has at least one result.</summary>
    Task<bool> AnyAsync(CancellationToken cancellationToken = default);
}
