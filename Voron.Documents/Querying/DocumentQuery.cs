using System.Linq.Expressions;
using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Serialization;
using Voron.Documents.Sessions;

namespace Voron.Documents.Querying;

/// <summary>The typed query (IDocumentQuery): an immutable builder over a <see cref="QuerySpec"/>, run by the session.</summary>
internal sealed class DocumentQuery<T>(DocumentSession session, JsonTypeInfo<T> typeInfo, DocumentType type, QuerySpec spec) : IOrderedDocumentQuery<T>
    where T : class
{
    private DocumentQuery<T> With(QuerySpec next) => new(session, typeInfo, type, next);

    public IDocumentQuery<T> Where(Expression<Func<T, bool>> predicate) => With(spec.With(TranslationCache.Conditions(predicate, typeInfo)));

    public IDocumentQuery<T> WhereIdStartsWith(string prefix)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        return With(spec.With(new QueryCondition(null, ConditionKind.StartsWith, Encoding.UTF8.GetBytes(prefix), $"id starts with \"{prefix}\"")));
    }

    public IOrderedDocumentQuery<T> OrderBy<TKey>(Expression<Func<T, TKey>> key) =>
        With(spec with { Orders = [ExpressionTranslator.Order(key, typeInfo, descending: false)] });

    public IOrderedDocumentQuery<T> OrderByDescending<TKey>(Expression<Func<T, TKey>> key) =>
        With(spec with { Orders = [ExpressionTranslator.Order(key, typeInfo, descending: true)] });

    public IOrderedDocumentQuery<T> ThenBy<TKey>(Expression<Func<T, TKey>> key) => With(spec.ThenOrder(ExpressionTranslator.Order(key, typeInfo, descending: false)));

    public IOrderedDocumentQuery<T> ThenByDescending<TKey>(Expression<Func<T, TKey>> key) => With(spec.ThenOrder(ExpressionTranslator.Order(key, typeInfo, descending: true)));

    public IDocumentQuery<T> Skip(int count) => With(spec.WithSkip(count));

    public IDocumentQuery<T> Take(int count) => With(spec.WithTake(count));

    public IDocumentQuery<T> AllowScan() => With(spec with { AllowScan = true });

    public string Explain() => QueryPlanner.Plan(spec, session.Owner.Catalog, session.Owner.IsReplica).Description;

    public Task<List<T>> ToListAsync(CancellationToken cancellationToken = default) => Task.FromResult(Run(spec, int.MaxValue, cancellationToken));

    public Task<T?> FirstOrDefaultAsync(CancellationToken cancellationToken = default) =>
        Task.FromResult(Run(spec.WithTake(1), 1, cancellationToken).FirstOrDefault());

    public Task<T?> FirstOrDefaultAsync(Expression<Func<T, bool>> predicate, CancellationToken cancellationToken = default) =>
        ((DocumentQuery<T>)Where(predicate)).FirstOrDefaultAsync(cancellationToken);

    public Task<T> SingleAsync(CancellationToken cancellationToken = default)
    {
        var results = Run(spec.WithTake(2), 2, cancellationToken);
        return results.Count == 1
            ? Task.FromResult(results[0])
            : throw new InvalidOperationException(results.Count == 0 ? "The query has no result; SingleAsync expects exactly one." : "The query has more than one result; SingleAsync expects exactly one.");
    }

    public Task<T> SingleAsync(Expression<Func<T, bool>> predicate, CancellationToken cancellationToken = default) =>
        ((DocumentQuery<T>)Where(predicate)).SingleAsync(cancellationToken);

    public Task<T?> SingleOrDefaultAsync(CancellationToken cancellationToken = default)
    {
        var results = Run(spec.WithTake(2), 2, cancellationToken);
        return results.Count <= 1
            ? Task.FromResult(results.FirstOrDefault())
            : throw new InvalidOperationException("The query has more than one result; SingleOrDefaultAsync expects at most one.");
    }

    public Task<int> CountAsync(CancellationToken cancellationToken = default) => Task.FromResult(session.CountQuery(spec, cancellationToken));

    public Task<int> CountAsync(Expression<Func<T, bool>> predicate, CancellationToken cancellationToken = default) =>
        ((DocumentQuery<T>)Where(predicate)).CountAsync(cancellationToken);

    public Task<bool> AnyAsync(CancellationToken cancellationToken = default) => Task.FromResult(session.CountQuery(spec.WithTake(1), cancellationToken) > 0);

    public Task<bool> AnyAsync(Expression<Func<T, bool>> predicate, CancellationToken cancellationToken = default) =>
        ((DocumentQuery<T>)Where(predicate)).AnyAsync(cancellationToken);

    /// <summary>Results pre-sized up to this many: a larger Take still grows the list as results come.</summary>
    private const int MaxPresized = 256;

    /// <summary>
    /// Reads the results (their JSON copied once from the pages into a pooled batch), then turns them
    /// into entities together (<see cref="DocumentSession.MaterializeAll{T}"/>). When reading stops
    /// with an error, the results read before it are still materialized first, so the error a caller
    /// sees and what the session tracks are those of reading and materializing one result at a time.
    /// </summary>
    private List<T> Run(QuerySpec query, int limit, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var expected = Math.Min(Math.Min(limit, query.Take ?? 0), MaxPresized);
        var results = new List<T>(expected);
        using var run = session.OpenQuery(query);
        using var batch = new ResultBatch(expected);
        try
        {
            session.ReserveTracking(expected);
            Exception? stopped = null;
            try
            {
                while (batch.Count < limit && run.Cursor.MoveNext(batch))
                {
                    if (cancellationToken.IsCancellationRequested)
                    {
                        batch.DropLast(); // read, not yet materialized, as one result at a time would leave it
                        cancellationToken.ThrowIfCancellationRequested();
                    }
                }
            }
            catch (Exception e)
            {
                stopped = e;
            }

            session.MaterializeAll(batch, type, typeInfo, results);
            if (stopped != null)
            {
                System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(stopped);
            }

            run.Returned = results.Count;
            return results;
        }
        catch (Exception e)
        {
            run.Fail(e);
            throw;
        }
    }

    public IAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default)
    {
        var sink = new EntitySink<T>(session, type, typeInfo);
        return QueryRun.Stream(() => session.OpenQuery(spec), sink, () => sink.Current!, cancellationToken);
    }
}
