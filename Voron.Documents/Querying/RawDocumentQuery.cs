using System.Text;
using Voron.Documents.Indexing;
using Voron.Documents.Sessions;

namespace Voron.Documents.Querying;

/// <summary>The raw query (IRawDocumentQuery): conditions by JSON path, results as stored JSON.</summary>
internal sealed class RawDocumentQuery(DocumentSession session, QuerySpec spec) : IRawDocumentQuery
{
    private RawDocumentQuery With(QuerySpec next) => new(session, next);

    public IRawDocumentQuery Where(string path, QueryOperator op, string? value)
    {
        if (value == null)
        {
            return op == QueryOperator.Equal
                ? Add(path, op, [IndexKey.Null], "null")
                : throw new NotSupportedException("A range with null matches nothing; compare null with Equal only.");
        }

        var key = new KeyBuilder();
        IndexKey.EncodeString(Encoding.UTF8.GetBytes(value), key);
        return Add(path, op, key.ToArray(), $"\"{value}\"");
    }

    public IRawDocumentQuery Where(string path, QueryOperator op, long value)
    {
        var key = new KeyBuilder();
        IndexKey.EncodeInteger(value, key);
        return Add(path, op, key.ToArray(), value.ToString(System.Globalization.CultureInfo.InvariantCulture));
    }

    public IRawDocumentQuery Where(string path, QueryOperator op, double value)
    {
        if (!double.IsFinite(value))
        {
            throw new ArgumentOutOfRangeException(nameof(value), value, "JSON numbers are finite.");
        }

        var key = new KeyBuilder();
        IndexKey.EncodeDouble(value, key);
        return Add(path, op, key.ToArray(), value.ToString("R", System.Globalization.CultureInfo.InvariantCulture));
    }

    public IRawDocumentQuery Where(string path, QueryOperator op, bool value) =>
        Add(path, op, [value ? IndexKey.True : IndexKey.False], value ? "true" : "false");

    public IRawDocumentQuery WhereStartsWith(string path, string prefix)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        var key = new KeyBuilder();
        IndexKey.EncodeStringPrefix(Encoding.UTF8.GetBytes(prefix), key);
        var parsed = JsonPath.Parse(path, nameof(path));
        return With(spec.With(new QueryCondition(parsed, ConditionKind.StartsWith, key.ToArray(), $"{parsed} starts with \"{prefix}\"")));
    }

    public IRawDocumentQuery WhereIdStartsWith(string prefix)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        return With(spec.With(new QueryCondition(null, ConditionKind.StartsWith, Encoding.UTF8.GetBytes(prefix), $"id starts with \"{prefix}\"")));
    }

    private RawDocumentQuery Add(string path, QueryOperator op, byte[] value, string display)
    {
        var parsed = JsonPath.Parse(path, nameof(path));
        var kind = op switch
        {
            QueryOperator.Equal => ConditionKind.Equal,
            QueryOperator.LessThan => ConditionKind.LessThan,
            QueryOperator.LessThanOrEqual => ConditionKind.LessThanOrEqual,
            QueryOperator.GreaterThan => ConditionKind.GreaterThan,
            QueryOperator.GreaterThanOrEqual => ConditionKind.GreaterThanOrEqual,
            _ => throw new ArgumentOutOfRangeException(nameof(op), op, null),
        };
        return With(spec.With(new QueryCondition(parsed, kind, value, $"{parsed} {ExpressionTranslator.Symbol(kind)} {display}")));
    }

    public IRawDocumentQuery OrderBy(string path, bool descending = false)
    {
        var parsed = JsonPath.Parse(path, nameof(path));
        return With(spec.ThenOrder(new QueryOrder(parsed, descending, parsed.Text)));
    }

    public IRawDocumentQuery Skip(int count) => With(spec.WithSkip(count));

    public IRawDocumentQuery Take(int count) => With(spec.WithTake(count));

    public IRawDocumentQuery AllowScan() => With(spec with { AllowScan = true });

    public string Explain() => QueryPlanner.Plan(spec, session.Owner.Catalog, session.Owner.IsReplica).Description;

    public Task<List<RawDocument>> ToListAsync(CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var results = new List<RawDocument>(Math.Min(spec.Take ?? 0, 256));
        using var run = session.OpenQuery(spec);
        var sink = new RawSink();
        try
        {
            while (run.Cursor.MoveNext(sink))
            {
                results.Add(sink.Current!);
                cancellationToken.ThrowIfCancellationRequested();
            }

            run.Returned = results.Count;
            return Task.FromResult(results);
        }
        catch (Exception e)
        {
            foreach (var result in results)
            {
                result.Dispose();
            }

            run.Fail(e);
            throw;
        }
    }

    public Task<int> CountAsync(CancellationToken cancellationToken = default) => Task.FromResult(session.CountQuery(spec, cancellationToken));

    public Task<bool> AnyAsync(CancellationToken cancellationToken = default) => Task.FromResult(session.CountQuery(spec.WithTake(1), cancellationToken) > 0);

    public IAsyncEnumerator<RawDocument> GetAsyncEnumerator(CancellationToken cancellationToken = default)
    {
        var sink = new RawSink();
        return QueryRun.Stream(() => session.OpenQuery(spec), sink, () => sink.Current!, cancellationToken);
    }
}
