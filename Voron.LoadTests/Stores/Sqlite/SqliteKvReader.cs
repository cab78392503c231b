using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Stores.Sqlite;

/// <summary>
/// A connection of its own with one deferred transaction held open, so all of the reader's reads
/// see one snapshot (as a Voron or LMDB read transaction does) and none pays for starting and
/// ending a read transaction of its own. The queries are prepared once and reused.
/// </summary>
internal sealed class SqliteKvReader : IKvReader
{
    private readonly SqliteConnection _connection;
    private SqliteTransaction _transaction;
    private readonly SqliteCommand _select;
    private readonly SqliteParameter _key;
    private readonly SqliteCommand _range;
    private readonly SqliteParameter _rangeFrom;
    private readonly SqliteParameter _rangeCount;
    private byte[] _value = new byte[1024];

    internal SqliteKvReader(SqliteConnection connection)
    {
        _connection = connection;
        try
        {
            _transaction = connection.BeginTransaction(deferred: true);
            _select = connection.CreateCommand();
            _select.Transaction = _transaction;
            _select.CommandText = "SELECT v FROM kv WHERE k = $k";
            _key = _select.Parameters.Add("$k", SqliteType.Blob);
            _select.Prepare();
            _range = connection.CreateCommand();
            _range.Transaction = _transaction;
            _range.CommandText = "SELECT v FROM kv WHERE k >= $from ORDER BY k LIMIT $count";
            _rangeFrom = _range.Parameters.Add("$from", SqliteType.Blob);
            _rangeCount = _range.Parameters.Add("$count", SqliteType.Integer);
            _range.Prepare();
        }
        catch
        {
            connection.Dispose();
            throw;
        }
    }

    public bool TryGet(byte[] key, out int valueLength)
    {
        _key.Value = key;
        using var reader = _select.ExecuteReader();
        if (!reader.Read())
        {
            valueLength = 0;
            return false;
        }

        valueLength = CopyValue(reader, ref _value);
        return true;
    }

    public int Scan(byte[] from, int count)
    {
        _rangeFrom.Value = from;
        _rangeCount.Value = count;
        using var reader = _range.ExecuteReader();
        var read = 0;
        while (reader.Read())
        {
            CopyValue(reader, ref _value);
            read++;
        }

        return read;
    }

    public void Refresh()
    {
        _transaction.Commit();
        _transaction.Dispose();
        _transaction = _connection.BeginTransaction(deferred: true);
        _select.Transaction = _transaction;
        _range.Transaction = _transaction;
    }

    public long WarmUp()
    {
        using var scan = _connection.CreateCommand();
        scan.Transaction = _transaction;
        scan.CommandText = "SELECT v FROM kv ORDER BY k";
        using var reader = scan.ExecuteReader();
        long count = 0;
        while (reader.Read())
        {
            CopyValue(reader, ref _value);
            count++;
        }

        return count;
    }

    /// <summary>
    /// Copies column 0 of the current row into <paramref name="buffer"/> (grown if too small);
    /// returns its length. One GetBytes call when the value fits: each call is a noticeable part of
    /// a whole point read, so asking for the length first would slow SQLite down
    /// (docs/results/2026-12-06-code-comment-measurements.md).
    /// </summary>
    internal static int CopyValue(SqliteDataReader reader, ref byte[] buffer)
    {
        var copied = (int)reader.GetBytes(0, 0, buffer, 0, buffer.Length);
        if (copied < buffer.Length)
        {
            return copied;
        }

        var length = (int)reader.GetBytes(0, 0, null, 0, 0);
        if (length > buffer.Length)
        {
            buffer = new byte[length];
            copied = (int)reader.GetBytes(0, 0, buffer, 0, length);
        }

        return copied;
    }

    public void Dispose()
    {
        _select.Dispose();
        _range.Dispose();
        _transaction.Dispose();
        _connection.Dispose();
    }
}
