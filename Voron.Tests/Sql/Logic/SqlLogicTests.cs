namespace Voron.Tests.Sql.Logic;

/// <summary>
/// SQLite's own sqllogictest scripts (public domain; Data/README.md), run through
/// Microsoft.Data.Sqlite on Vfs=voron and on SQLite's default VFS: both must give exactly the
/// results the scripts expect — results no one on this project wrote.
/// </summary>
public sealed class SqlLogicTests(ITestOutputHelper output)
{
    public static TheoryData<string> Scripts()
    {
        var data = new TheoryData<string>();
        var root = Path.Combine(AppContext.BaseDirectory, "Sql", "Logic", "Data");
        foreach (var file in Directory.GetFiles(root, "*.test", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
        {
            data.Add(Path.GetRelativePath(root, file));
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Scripts))]
    public void Script_gives_the_expected_results_on_vfs_voron(string script)
    {
        var records = SqlLogicScript.Parse(ScriptPath(script));
        using var store = new SqlStore();
        using var connection = store.Open("slt", pooling: false);
        var failures = SqlLogicRunner.Run(connection, records, script);
        output.WriteLine($"{script}: {records.Count} records on Vfs={store.VfsName}");
        Assert.True(failures.Count == 0, string.Join("\n\n", failures));
        Assert.Equal("ok", connection.IntegrityCheck());
    }

    [Theory]
    [MemberData(nameof(Scripts))]
    public void Script_gives_the_expected_results_on_the_default_vfs(string script)
    {
        var records = SqlLogicScript.Parse(ScriptPath(script));
        using var directory = new TempDirectory();
        using var connection = new SqliteConnection($"Data Source={directory.Combine("slt.db")};Pooling=False");
        connection.Open();
        connection.Execute("PRAGMA synchronous=OFF"); // results do not depend on it; fsyncs would only slow the run
        var failures = SqlLogicRunner.Run(connection, records, script);
        Assert.True(failures.Count == 0, string.Join("\n\n", failures));
    }

    internal static string ScriptPath(string script) => Path.Combine(AppContext.BaseDirectory, "Sql", "Logic", "Data", script);
}
