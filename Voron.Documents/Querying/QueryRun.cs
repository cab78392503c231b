using Voron.Documents.Diagnostics;

namespace Voron.Documents.Querying;

/// <summary>One execution of a query: its snapshot, its cursor and its telemetry; dispose it to end the snapshot.</summary>
internal sealed class QueryRun(ReadTransaction transaction, QueryCursor cursor, OperationScope operation) : IDisposable
{
    private bool _disposed;

    public QueryCursor Cursor { get; } = cursor;

    public int Returned { get; set; }

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
