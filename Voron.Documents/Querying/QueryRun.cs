using Voron.Documents.Diagnostics;

namespace Voron.Documents.Querying;

/// <summary>One execution of a query: its snapshot, its cursor and its telemetry; dispose it to end the snapshot.</summary>
internal sealed class QueryRun(ReadTransaction transaction, QueryCursor cursor, OperationScope operation) : IDisposable
{
    private bool _disposed;

    public QueryCursor Cursor { get; } = cursor;

    public int Returned { get; set; }

    /// <summary>
    /// Yields the results of the run <paramref name="open"/> starts (at the first MoveNextAsync, as
    /// a query enumerated later must see the snapshot of then) one at a time as its cursor reads
    /// them into <paramref name="sink"/>, whose <paramref name="current"/> is the result just read;
    /// an error while reading fails the run before it reaches the caller, and the run ends with the
    /// enumeration.
    /// </summary>
    public static async IAsyncEnumerator<T> Stream<T>(Func<QueryRun> open, IQueryResultSink sink, Func<T> current, CancellationToken cancellationToken)
    {
        await Task.CompletedTask.ConfigureAwait(false);
        using var run = open();
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            T item;
            try
            {
                if (!run.Cursor.MoveNext(sink))
                {
                    break;
                }

                item = current();
            }
            catch (Exception e)
            {
                run.Fail(e);
                throw;
            }

            run.Returned++;
            yield return item;
        }
    }

    public void Fail(Exception error)
    {
        if (!_disposed)
        {
            _disposed = true;
            Cursor.Dispose();
            transaction.Dispose();
            operation.Fail(error);
        }
    }

    public void Dispose()
    {
        if (!_disposed)
        {
            _disposed = true;
            Cursor.Dispose();
            transaction.Dispose();
            operation.Complete(Returned);
        }
    }
}
