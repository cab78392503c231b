using Microsoft.Data.Sqlite;

namespace Voron.LoadTests.Engines.Sqlite;

/// <summary>
/// A connection of its own with one deferred transaction held open, so all of the reader's point
/// reads see one snapshot (as a Voron or LMDB read transaction does) and none pays for starting
/// and ending a read transaction of its own. The point query is prepared once and reused.
/// </summary>
internal sealed class SqliteKvReader : IKvReader
{
    private readonly SqliteConnection _connection;
    private readonly SqliteTransaction _transaction;
    private readonly SqliteCommand _select;
    private readonly SqliteParameter _key;
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

    /// <summary>
    /// Copies column 0 of the current row into <paramref name="buffer"/> (grown if too small);
    /// returns its length. One GetBytes call when the value fits: each call costs about a tenth of
    /// a whole point read (measured), so asking for the length first would slow SQLite down.
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
        _transaction.Dispose();
        _connection.Dispose();
    }
}
