using Microsoft.Data.Sqlite;

namespace Voron.LoadTests.Engines.Sqlite;

/// <summary>The two command helpers the SQLite-backed engines share: run a statement, prepare one with typed parameters.</summary>
internal static class SqliteCommands
{
    public static void Execute(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    public static SqliteCommand Prepare(SqliteConnection connection, string sql, params (string Name, SqliteType Type)[] parameters)
    {
        var command = connection.CreateCommand();
        command.CommandText = sql;
        foreach (var (name, type) in parameters)
        {
            command.Parameters.Add(name, type);
        }

        command.Prepare();
        return command;
    }
}
