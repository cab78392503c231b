namespace Voron.Tests.Sql.Logic;

/// <summary>The sqllogictest conversion's rules (1–6 in <see cref="SqlLogicConversion"/>), each on its own.</summary>
public sealed class SqlLogicConversionTests
{
    [Fact]
    public void CreateVirtualTable_declares_each_column_as_a_json_path_with_its_affinity_and_hides_id_and_body()
    {
        Assert.True(SqlLogicTable.TryParse("CREATE TABLE t1(a INTEGER, b INTEGER, c INTEGER, d INTEGER, e INTEGER)", out var t1));
        Assert.Equal(
            "CREATE VIRTUAL TABLE t1 USING voron_docs(t1, id HIDDEN, body HIDDEN, a='$.a' INTEGER, b='$.b' INTEGER, c='$.c' INTEGER, d='$.d' INTEGER, e='$.e' INTEGER)",
            SqlLogicVoronDocsTarget.CreateVirtualTable(t1, "t1"));

        Assert.True(SqlLogicTable.TryParse("CREATE TABLE t1(\n  a1 INTEGER PRIMARY KEY,\n  b1 INTEGER,\n  x1 VARCHAR(40)\n)", out var t5));
        Assert.Equal(
            "CREATE VIRTUAL TABLE t1 USING voron_docs(t1_2, id HIDDEN, body HIDDEN, a1='$.a1' INTEGER, b1='$.b1' INTEGER, x1='$.x1' TEXT)",
            SqlLogicVoronDocsTarget.CreateVirtualTable(t5, "t1_2"));
        Assert.Equal((true, "a1"), (t5.UniqueKeys.Single().IsPrimaryKey, t5.UniqueKeys.Single().Columns.Single()));
    }

    [Theory]
    [InlineData("INTEGER", "INTEGER")]
    [InlineData("BIGINT", "INTEGER")]
    [InlineData("VARCHAR(30)", "TEXT")]
    [InlineData("CLOB", "TEXT")]
    [InlineData("", "")]
    [InlineData("BLOB", "BLOB")]
    [InlineData("DOUBLE PRECISION", "REAL")]
    [InlineData("FLOAT", "REAL")]
    [InlineData("FLOATING POINT", "INTEGER")] // "POINT" holds INT, and the INT rule comes first
    [InlineData("DECIMAL(10,2)", "NUMERIC")]
    public void Affinity_follows_sqlite_rules_in_their_order(string declared, string affinity) =>
        Assert.Equal(affinity, SqlLogicTable.Affinity(declared));

    [Fact]
    public void TryParse_takes_unique_and_primary_key_constraints_and_refuses_the_others()
    {
        Assert.True(SqlLogicTable.TryParse("CREATE TABLE t3(z INTEGER UNIQUE, w DECIMAL(10,2), PRIMARY KEY(z, w))", out var table));
        Assert.Equal(["z", "w"], table.Columns.Select(c => c.Name));
        Assert.Equal(["INTEGER", "NUMERIC"], table.Columns.Select(c => c.Affinity));
        Assert.Equal(["z", "z,w"], table.UniqueKeys.Select(k => string.Join(',', k.Columns)));

        Assert.Throws<NotSupportedException>(() => SqlLogicTable.TryParse("CREATE TABLE t(x INTEGER NOT NULL)", out _));
        Assert.Throws<NotSupportedException>(() => SqlLogicTable.TryParse("CREATE TABLE t(x INTEGER, CHECK(x > 0))", out _));
        Assert.False(SqlLogicTable.TryParse("CREATE TEMP TABLE t(x)", out _));
        Assert.False(SqlLogicTable.TryParse("CREATE VIEW v AS SELECT 1", out _));
    }

    [Fact]
    public void Index_becomes_an_index_definition_with_one_json_path_per_column()
    {
        var definition = new SqlLogicIndex("t1i0", "t1", "t1", ["a", "b"], IsUnique: false, FromScript: true).ToDefinition();
        Assert.Equal(("t1", "t1i0", 2, false), (definition.Collection, definition.Name, definition.Paths.Count, definition.IsUnique));
        Assert.True(new SqlLogicIndex("t1_a_pk", "t1", "t1", ["a"], IsUnique: true, FromScript: false).ToDefinition().IsUnique);
        Assert.Equal("$.a", SqlLogicIndex.PathOf("a"));
    }

    [Fact]
    public void Convert_makes_indexes_through_the_target_and_keeps_sqlite_index_names_unique()
    {
        var target = new RecordingTarget();
        var conversion = new SqlLogicConversion(new SqliteConnection(), target);
        Apply(conversion, "CREATE TABLE t8(a8 INTEGER, b8 INTEGER, e8 INTEGER)");
        Apply(conversion, "CREATE INDEX t8all ON t8(e8 DESC, b8 ASC)");
        Assert.Equal("index t8all already exists", Apply(conversion, "CREATE INDEX t8all ON t8(a8)"));

        Assert.Equal(["table t8 over t8", "index t8all on t8 (e8, b8)"], target.Calls);
        Assert.Equal(["t8all"], conversion.ScriptIndexes.Select(i => i.Name));
        Assert.Equal(SqlLogicStep.Run("CREATE INDEX other ON plain(x)"), conversion.Convert(Statement("CREATE INDEX other ON plain(x)")));
    }

    [Fact]
    public void Convert_drops_converted_indexes_through_the_target_and_leaves_unknown_names_to_sqlite()
    {
        var target = new RecordingTarget();
        var conversion = new SqlLogicConversion(new SqliteConnection(), target);
        Apply(conversion, "CREATE TABLE t1( x INTEGER, y VARCHAR(8) )");
        Apply(conversion, "CREATE INDEX t1i1 ON t1(x)");
        Assert.Null(Apply(conversion, "DROP INDEX t1i1;"));
        Assert.Equal("DROP INDEX tXiX;", conversion.Convert(Statement("DROP INDEX tXiX;")).Sql);
        Assert.Equal("DROP INDEX t1i1;", conversion.Convert(Statement("DROP INDEX t1i1;")).Sql); // gone: SQLite's own "no such index"
        Assert.Equal("drop index t1i1", target.Calls[^1]);
    }

    [Fact]
    public void Convert_gives_a_table_created_again_after_drop_table_a_fresh_collection_and_drops_its_indexes()
    {
        var target = new RecordingTarget();
        var conversion = new SqlLogicConversion(new SqliteConnection(), target);
        Apply(conversion, "CREATE TABLE t1( x INTEGER PRIMARY KEY, y VARCHAR(8) )");
        Apply(conversion, "CREATE INDEX t1i1 ON t1(x)");
        var drop = conversion.Convert(Statement("DROP TABLE t1"));
        Assert.Equal("DROP TABLE t1", drop.Sql);
        drop.AfterSuccess!();
        Assert.Equal("DROP INDEX t1i1;", conversion.Convert(Statement("DROP INDEX t1i1;")).Sql); // dropped with its table
        Apply(conversion, "CREATE TABLE t1( x INTEGER, y VARCHAR(8) )");

        Assert.Equal(["table t1 over t1 (unique t1_x_pk)", "index t1i1 on t1 (x)", "table dropped: t1_x_pk, t1i1", "table t1 over t1_2"], target.Calls);
    }

    [Fact]
    public void Convert_skips_triggers_on_converted_tables_and_reindex_with_a_reason_and_runs_the_rest_as_written()
    {
        var conversion = new SqlLogicConversion(new SqliteConnection(), new RecordingTarget());
        Apply(conversion, "CREATE TABLE t1( x INTEGER, y VARCHAR(8) )");
        Apply(conversion, "CREATE INDEX t1i1 ON t1(x)");

        Assert.NotNull(conversion.Convert(Statement("CREATE TRIGGER t1r1 UPDATE ON t1 BEGIN SELECT 1; END;")).SkipReason);
        Assert.NotNull(conversion.Convert(Statement("CREATE TRIGGER t1r5 AFTER DELETE ON t1 BEGIN SELECT 1; END;")).SkipReason);
        Assert.NotNull(conversion.Convert(Statement("DROP TRIGGER t1r1")).SkipReason);
        Assert.NotNull(conversion.Convert(Statement("REINDEX t1i1")).SkipReason);
        Assert.NotNull(conversion.Convert(Statement("ALTER TABLE t1 RENAME TO t2")).SkipReason);
        foreach (var sql in (string[])["DROP TRIGGER tXrX", "REINDEX tXiX", "CREATE TRIGGER r UPDATE ON plain BEGIN SELECT 1; END;", "INSERT INTO t1 VALUES(1,'true')",
                     "CREATE VIEW view1 AS SELECT x FROM t1 WHERE x>0", "UPDATE t1 SET x=1 WHERE y='unknown'"])
        {
            Assert.Equal(SqlLogicStep.Run(sql), conversion.Convert(Statement(sql)));
        }
    }

    [Fact]
    public void Split_cuts_a_record_at_top_level_semicolons_only()
    {
        Assert.Equal(["INSERT INTO t1 VALUES(-1,'true')", "DROP INDEX t1i1"], SqlLogicConversion.Split("INSERT INTO t1 VALUES(-1,'true');\nDROP INDEX t1i1;"));
        Assert.Equal(["INSERT INTO t1 VALUES(1,'a;b')"], SqlLogicConversion.Split("INSERT INTO t1 VALUES(1,'a;b')"));
        Assert.Equal(["CREATE TRIGGER t1r1 UPDATE ON t1 BEGIN SELECT 1; END", "SELECT 2"], SqlLogicConversion.Split("CREATE TRIGGER t1r1 UPDATE ON t1 BEGIN SELECT 1; END; SELECT 2"));
    }

    [Fact]
    public void Convert_converts_each_statement_of_a_record_of_several()
    {
        using var connection = new SqliteConnection("Data Source=:memory:");
        connection.Open();
        var target = new RecordingTarget();
        var conversion = new SqlLogicConversion(connection, target);
        Apply(conversion, "CREATE TABLE t1( x INTEGER, y VARCHAR(8) )");
        Apply(conversion, "CREATE INDEX t1i1 ON t1(x)");
        connection.Execute("CREATE TABLE t1(x INTEGER, y TEXT)"); // the recording target made none

        Assert.Null(Apply(conversion, "INSERT INTO t1 VALUES(-1,'true');\nDROP INDEX t1i1;"));
        Assert.Equal("drop index t1i1", target.Calls[^1]);
        Assert.Equal(1L, connection.Scalar<long>("SELECT count(*) FROM t1"));
    }

    [Fact]
    public void Run_counts_each_skipped_statement_under_its_reason()
    {
        using var connection = new SqliteConnection("Data Source=:memory:");
        connection.Open();
        var conversion = new SqlLogicConversion(connection, new SqlLogicPlainTarget());
        var report = new SqlLogicReport();
        var failures = SqlLogicRunner.Run(connection, SqlLogicScript.Parse(SqlLogicTests.ScriptPath("evidence/slt_lang_createtrigger.test")), "createtrigger", conversion, report);

        Assert.Empty(failures);
        Assert.Equal(11, report.Skipped["CREATE TRIGGER on a voron_docs table (SQLite allows no trigger on a virtual table)"]);
        Assert.Equal(10, report.Skipped["DROP TRIGGER of a trigger whose CREATE TRIGGER was skipped"]);
        Assert.Equal(5, report.Statements);
    }

    private static SqlLogicStatement Statement(string sql) => new(1, sql, ExpectError: false);

    /// <summary>Converts and applies a statement that the conversion handles itself; its error, or null.</summary>
    private static string? Apply(SqlLogicConversion conversion, string sql)
    {
        var step = conversion.Convert(Statement(sql));
        Assert.NotNull(step.Apply);
        var error = step.Apply();
        if (error == null)
        {
            step.AfterSuccess?.Invoke();
        }

        return error;
    }

    private sealed class RecordingTarget : ISqlLogicTarget
    {
        public List<string> Calls { get; } = [];

        public string Name => "recording";

        public string? CreateTable(SqliteConnection connection, SqlLogicTable table, string collection, IReadOnlyList<SqlLogicIndex> uniqueKeys)
        {
            Calls.Add($"table {table.Name} over {collection}{(uniqueKeys.Count == 0 ? "" : $" (unique {string.Join(", ", uniqueKeys.Select(k => k.Name))})")}");
            return null;
        }

        public string? CreateIndex(SqliteConnection connection, SqlLogicIndex index)
        {
            Calls.Add($"index {index.Name} on {index.Collection} ({string.Join(", ", index.Columns)})");
            return null;
        }

        public string? DropIndex(SqliteConnection connection, SqlLogicIndex index)
        {
            Calls.Add($"drop index {index.Name}");
            return null;
        }

        public void TableDropped(SqliteConnection connection, IReadOnlyList<SqlLogicIndex> indexes) =>
            Calls.Add($"table dropped: {string.Join(", ", indexes.Select(i => i.Name))}");
    }
}
