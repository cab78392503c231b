using Microsoft.Data.Sqlite;
using Voron.LoadTests.Experiments.Documents;

namespace Voron.Diagnostics.Engines.SqlDocs;

/// <summary>
/// A caller of a SQL engine: its own connection (from Microsoft.Data.Sqlite's pool) and every
/// statement prepared once, re-bound per call, as a knowledgeable user writes it. Writes are
/// autocommit statements; the cross-door write is one explicit transaction (BEGIN IMMEDIATE).
/// </summary>
internal sealed class SqlDocsSqlCaller : ISqlDocsCaller
{
    private readonly SqliteConnection _connection;
    private readonly SqliteCommand _lookup;
    private readonly SqliteCommand _queryEqual;
    private readonly SqliteCommand _queryRange;
    private readonly SqliteCommand _join;
    private readonly SqliteCommand _insertProfile;
    private readonly SqliteCommand _insertPurchase;

    public SqlDocsSqlCaller(SqliteConnection connection, SqlDocsStatements sql)
    {
        _connection = connection;
        _lookup = SqlDocsData.Prepare(connection, sql.Lookup, ("$id", SqliteType.Text));
        _queryEqual = SqlDocsData.Prepare(connection, sql.QueryEqual, ("$city", SqliteType.Text), ("$take", SqliteType.Integer));
        _queryRange = SqlDocsData.Prepare(connection, sql.QueryRange, ("$min", SqliteType.Integer), ("$max", SqliteType.Integer), ("$take", SqliteType.Integer));
        _join = SqlDocsData.Prepare(connection, sql.Join, ("$first", SqliteType.Integer), ("$end", SqliteType.Integer));
        _insertProfile = SqlDocsData.Prepare(connection, sql.InsertProfile, ("$id", SqliteType.Text), ("$body", SqliteType.Text));
        _insertPurchase = SqlDocsData.Prepare(connection, SqlDocsData.InsertPurchase, ("$profile", SqliteType.Text), ("$amount", SqliteType.Real));
    }

    public ValueTask<Profile?> LoadAsync(string id)
    {
        _lookup.Parameters[0].Value = id;
        using var reader = _lookup.ExecuteReader();
        return ValueTask.FromResult(reader.Read() ? SqlDocsData.Parse(reader.GetString(0)) : null);
    }

    public ValueTask<int> QueryEqualAsync(string city, int take)
    {
        _queryEqual.Parameters[0].Value = city;
        _queryEqual.Parameters[1].Value = take;
        return ValueTask.FromResult(ReadProfiles(_queryEqual));
    }

    public ValueTask<int> QueryRangeAsync(int minAge, int maxAge, int take)
    {
        _queryRange.Parameters[0].Value = minAge;
        _queryRange.Parameters[1].Value = maxAge;
        _queryRange.Parameters[2].Value = take;
        return ValueTask.FromResult(ReadProfiles(_queryRange));
    }

    public ValueTask<int> JoinAsync(long firstPurchase, int count)
    {
        _join.Parameters[0].Value = firstPurchase;
        _join.Parameters[1].Value = firstPurchase + count;
        var found = 0;
        using var reader = _join.ExecuteReader();
        while (reader.Read())
        {
            _ = reader.GetInt64(0) + reader.GetDouble(1);
            found += reader.IsDBNull(2) || reader.GetString(2).Length == 0 ? 0 : 1;
        }

        return ValueTask.FromResult(found);
    }

    public ValueTask InsertAsync(Profile profile)
    {
        _insertProfile.Transaction = null;
        BindProfile(profile);
        _insertProfile.ExecuteNonQuery();
        return ValueTask.CompletedTask;
    }

    public ValueTask CrossDoorAsync(Profile profile, double amount)
    {
        _insertPurchase.Parameters[0].Value = profile.Id;
        _insertPurchase.Parameters[1].Value = amount;
        BindProfile(profile); // serialized before the transaction takes the write lock
        using var transaction = _connection.BeginTransaction();
        _insertPurchase.Transaction = transaction;
        _insertProfile.Transaction = transaction;
        _insertPurchase.ExecuteNonQuery();
        _insertProfile.ExecuteNonQuery();
        transaction.Commit();
        return ValueTask.CompletedTask;
    }

    private void BindProfile(Profile profile)
    {
        _insertProfile.Parameters[0].Value = profile.Id;
        _insertProfile.Parameters[1].Value = SqlDocsData.Json(profile);
    }

    private static int ReadProfiles(SqliteCommand command)
    {
        var profiles = new List<Profile>();
        using var reader = command.ExecuteReader();
        while (reader.Read())
        {
            profiles.Add(SqlDocsData.Parse(reader.GetString(0)) ?? throw new InvalidOperationException("a stored profile is JSON null"));
        }

        return profiles.Count;
    }

    public void Dispose()
    {
        _lookup.Dispose();
        _queryEqual.Dispose();
        _queryRange.Dispose();
        _join.Dispose();
        _insertProfile.Dispose();
        _insertPurchase.Dispose();
        _connection.Dispose();
    }
}
