namespace Voron.Tests.Sql;

/// <summary>
/// V12: a database's full pathname (what sqlite3_db_filename and SqliteConnection.DataSource
/// report, and what a tool that manages "the database file" acts on) names that database and no
/// OS file. For random valid names: the full pathname is absolute, lies under the store's
/// directory in a directory that does not exist, opening it reaches the same database, ATTACH of
/// the plain name reaches it too, and deleting it as a file fails without deleting anything.
/// </summary>
public sealed class VfsFullPathnameTests(ITestOutputHelper output)
{
    private const string Alphabet = "abcxyzABC0123456789 ._-~()[]'é日本\U0001F600";

    [Fact]
    public void A_databases_full_pathname_names_that_database_and_no_OS_file()
    {
        var seed = TestSeed.Next(output, nameof(A_databases_full_pathname_names_that_database_and_no_OS_file));
        var random = new Random(seed);
        using var directory = new TempDirectory();
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path));
        using var sql = Voron.SqliteVfs.VoronSqlite.Register(environment, "voron-names-" + Guid.NewGuid().ToString("N")[..8]);
        var names = Enumerable.Range(0, CrashBudget.Count(12, 0.0001)).Select(_ => RandomName(random)).Distinct().ToList();
        using var attacher = new SqliteConnection(sql.ConnectionString("attacher"));
        attacher.Open();
        foreach (var name in names)
        {
            var where = $"seed {seed}, name '{name}'";
            string full;
            using (var connection = new SqliteConnection(sql.ConnectionString(name)))
            {
                connection.Open();
                connection.Execute("CREATE TABLE t(v TEXT)");
                connection.Execute("INSERT INTO t VALUES ($v)", ("$v", name));
                full = connection.DataSource;
            }

            Assert.True(Path.IsPathFullyQualified(full), where + ": " + full);
            Assert.StartsWith(Path.Join(directory.Path, "(") , full, StringComparison.Ordinal);
            Assert.EndsWith(Path.DirectorySeparatorChar + name, full, StringComparison.Ordinal);
            Assert.False(File.Exists(full) || Directory.Exists(Path.GetDirectoryName(full)), where + ": the full pathname exists as an OS file or directory");

            // Opened by its full pathname, and attached by its name, it is the same database.
            using (var byPath = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = full, Vfs = sql.VfsName }.ToString()))
            {
                byPath.Open();
                Assert.Equal(name, byPath.Scalar<string>("SELECT v FROM t"));
                Assert.Equal(full, byPath.DataSource);
            }

            attacher.Execute("ATTACH $n AS other", ("$n", name));
            Assert.Equal(name, attacher.Scalar<string>("SELECT v FROM other.t"));
            attacher.Execute("DETACH other");

            // A tool that deletes "the database file" deletes nothing.
            Assert.ThrowsAny<IOException>(() => File.Delete(full));
            using var again = new SqliteConnection(sql.ConnectionString(name));
            again.Open();
            Assert.Equal(name, again.Scalar<string>("SELECT v FROM t"));
        }

        output.WriteLine($"{names.Count} names");
    }

    private static string RandomName(Random random)
    {
        var length = random.Next(1, 24);
        var text = new System.Text.StringBuilder();
        var elements = System.Globalization.StringInfo.GetTextElementEnumerator(Alphabet);
        var pieces = new List<string>();
        while (elements.MoveNext())
        {
            pieces.Add(elements.GetTextElement());
        }

        for (var i = 0; i < length; i++)
        {
            text.Append(pieces[random.Next(pieces.Count)]);
        }

        var name = text.ToString().Trim();
        return name.Length == 0 || name.EndsWith("-wal", StringComparison.Ordinal) ? "n" + name : name;
    }
}
