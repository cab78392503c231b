using System.Linq.Expressions;

namespace Voron.Documents;

/// <summary>
/// A query over one collection, served by an index — never a silent scan. Build it with
/// <see cref="Where"/>, <see cref="OrderBy{TKey}"/>, <see cref="Skip"/> and <see cref="Take"/>
/// (LINQ query syntax works too), then run it with an async terminal operator or
/// <c>await foreach</c>. Each run reads one snapshot.
/// </summary>
/// <remarks>
/// <para>What <see cref="Where"/> accepts, joined with <c>&amp;&amp;</c>: <c>==</c>, <c>!=</c>, <c>&lt;</c>, <c>&lt;=</c>,
/// <c>&gt;</c>, <c>&gt;=</c> between a member and a value (a constant, a captured variable, or an
/// expression without the document: it is evaluated once; <c>!=</c> is checked per result, so it
/// needs another condition an index serves, or <see cref="AllowScan"/>); a bool member alone or negated;
/// <c>member.StartsWith(value)</c> on strings (ordinal); <c>member.Contains(value)</c> on a
/// collection member (a multikey index); <c>string.CompareOrdinal(member, value) op 0</c>.
/// Members are chains from the document (<c>u.Address.City</c>); the id member is served by the
/// store itself. Values compare as JSON: numbers numerically, strings by ordinal UTF-8 order; a
/// range on one type never matches another (no nulls in <c>Age &lt; 30</c>). A numeric member
/// compared with a number of another type compares as the C# expression does: the member is
/// converted to the wider type, the value never to the member's (<c>Age &gt;= 18.5</c> with an
/// <c>int</c> Age matches 19, not 18); a narrowing cast of the member (<c>(int)x.Price</c>) and a
/// range on an enum stored as its name are refused.</para>
/// <para>The first conditions in an index's path order must be equalities; then one range (or
/// StartsWith) may follow; <see cref="OrderBy{TKey}"/> must follow the index's next paths (all
/// ascending or all descending). Other conditions are checked on the documents the index yields.
/// A query no ready index serves throws <see cref="NotSupportedException"/> naming the index that
/// would serve it, unless <see cref="AllowScan"/> was called: then it reads the collection and
/// sorts in memory.</para>
/// <para>Results are the committed documents (the session's pending changes are not applied to
/// them); a document the session already tracks is returned as the tracked object, and the others
/// become tracked (a session that streams a whole collection holds every document it read).</para>
/// <para>The methods take expression trees. A delegate (<c>Func&lt;T, bool&gt;</c>) passed to
/// <c>Where</c> binds to System.Linq's <c>AsyncEnumerable.Where</c> instead and filters the query's
/// results in memory, after they were read; pass a lambda.</para>
/// </remarks>
public interface IDocumentQuery<T> : IAsyncEnumerable<T> where T : class
{
    /// <summary>Adds conditions (joined with the others by AND).</summary>
    IDocumentQuery<T> Where(Expression<Func<T, bool>> predicate);

    /// <summary>Only documents whose id starts with <paramref name="prefix"/> (ordinal), in id order unless ordered otherwise.</summary>
    IDocumentQuery<T> WhereIdStartsWith(string prefix);

    /// <summary>Orders by a member, ascending.</summary>
    IOrderedDocumentQuery<T> OrderBy<TKey>(Expression<Func<T, TKey>> key);

    /// <summary>Orders by a member, descending.</summary>
    IOrderedDocumentQuery<T> OrderByDescending<TKey>(Expression<Func<T, TKey>> key);

    /// <summary>Skips the first <paramref name="count"/> results.</summary>
    IDocumentQuery<T> Skip(int count);

    /// <summary>Returns at most <paramref name="count"/> results.</summary>
    IDocumentQuery<T> Take(int count);

    /// <summary>Lets this query read every document of the collection (and sort in memory) when no index serves it. Explicit, because it is slow on large collections.</summary>
    IDocumentQuery<T> AllowScan();

    /// <summary>How the query runs: the index (or id range, or scan) it reads, its bounds, and what is checked per document.</summary>
    string Explain();

    /// <summary>Runs the query and returns every result, in order.</summary>
    Task<List<T>> ToListAsync(CancellationToken cancellationToken = default);

    /// <summary>The first result, or null when there is none.</summary>
    Task<T?> FirstOrDefaultAsync(CancellationToken cancellationToken = default);

    /// <summary>The first result that also matches <paramref name="predicate"/> (added as by <see cref="Where"/>), or null.</summary>
    Task<T?> FirstOrDefaultAsync(Expression<Func<T, bool>> predicate, CancellationToken cancellationToken = default);

    /// <summary>The only result; <see cref="InvalidOperationException"/> when there is none or more than one.</summary>
    Task<T> SingleAsync(CancellationToken cancellationToken = default);

    /// <summary>The only result that also matches <paramref name="predicate"/> (added as by <see cref="Where"/>); <see cref="InvalidOperationException"/> when there is none or more than one.</summary>
    Task<T> SingleAsync(Expression<Func<T, bool>> predicate, CancellationToken cancellationToken = default);

    /// <summary>The only result or null; <see cref="InvalidOperationException"/> when there is more than one.</summary>
    Task<T?> SingleOrDefaultAsync(CancellationToken cancellationToken = default);

    /// <summary>The number of results (documents are not deserialized).</summary>
    Task<int> CountAsync(CancellationToken cancellationToken = default);

    /// <summary>The number of results that also match <paramref name="predicate"/> (added as by <see cref="Where"/>).</summary>
    Task<int> CountAsync(Expression<Func<T, bool>> predicate, CancellationToken cancellationToken = default);

    /// <summary>Whether the query has at least one result.</summary>
    Task<bool> AnyAsync(CancellationToken cancellationToken = default);

    /// <summary>Whether a result also matches <paramref name="predicate"/> (added as by <see cref="Where"/>).</summary>
    Task<bool> AnyAsync(Expression<Func<T, bool>> predicate, CancellationToken cancellationToken = default);
}
