namespace Voron.LoadTests.Capabilities.Sql;

/// <summary>The command helpers every SQL workload and engine shares, on stock SQLite or on Voron: run a statement, prepare one with typed parameters, show a plan.</summary>
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

    /// <summary>EXPLAIN QUERY PLAN of <paramref name="sql"/> with <paramref name="values"/> bound, its detail lines joined by "; ".</summary>
    public static string Plan(SqliteConnection connection, string sql, params (string Name, object Value)[] values)
    {
        using var command = connection.CreateCommand();
        command.CommandText = "EXPLAIN QUERY PLAN " + sql;
        foreach (var (name, value) in values)
        {
            command.Parameters.AddWithValue(name, value);
        }

        using var reader = command.ExecuteReader();
        var lines = new List<string>();
        while (reader.Read())
        {
            lines.Add(reader.GetString(reader.FieldCount - 1));
        }

        return string.Join("; ", lines);
    }
}
