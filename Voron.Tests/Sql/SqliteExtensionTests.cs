using System.Diagnostics;
using Voron.Testing;

namespace Voron.Tests.Sql;

/// <summary>
/// Publishes voron.so with Voron.SqliteExtension/publish.sh (no trim or AOT warning allowed), then
/// drives the stock sqlite3 shell: <c>.load</c>, <c>voron_open</c>, <c>.open file:shop?vfs=voron</c>, queries on a
/// table and on voron_docs tables, which must print what Microsoft.Data.Sqlite answers on the same
/// store; writes through the shell that the library then reads; the errors of voron_open; and an
/// encrypted store opened with voron_open(path, key_file), refused without its key or with a bad key file. Needs
/// gcc (the extension's linker) and sqlite3; skipped, with the reason, without them. About three
/// minutes on 2 cores (the publish).
/// </summary>
[Collection(NativePublishCollection.Name)]
public sealed class SqliteExtensionTests : IDisposable
{
    // Every query returns integers or text formatted by SQLite, so both sides print the same.
    private static readonly string[] s_queries =
    [
        "SELECT order_id, printf('%.2f', amount) FROM invoices ORDER BY order_id LIMIT 5",
        "SELECT id, customer, printf('%.1f', total) FROM orders WHERE id = 'orders/7'",
        "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer WHERE o.id IN ('orders/1', 'orders/12') ORDER BY o.id",
        "SELECT i.order_id, o.customer FROM invoices i JOIN orders o ON o.id = i.order_id WHERE i.amount > 20 ORDER BY i.amount LIMIT 3",
        "SELECT count(*) FROM orders",
        "SELECT count(*) FROM invoices",
        "SELECT count(*), min(id) FROM voron_collection('Customer')",
    ];

    private readonly string _directory = Path.Combine(Path.GetTempPath(), "voron-extension-" + Guid.NewGuid().ToString("N")[..8]);

    [ProgramsFact("apt-get install gcc sqlite3", "gcc", "sqlite3")]
    public async Task The_stock_sqlite3_shell_loads_voron_so_and_queries_and_writes_a_store()
    {
        ProgramsFactAttribute.Require("gcc");
        ProgramsFactAttribute.Require("sqlite3");
        var bin = Path.Combine(_directory, "bin");
        var store = Path.Combine(_directory, "store");
        var publish = await RunAsync("sh", [Path.Combine(RepositoryRoot.Find(), "Voron.SqliteExtension", "publish.sh"), bin], stdin: null);
        Assert.True(publish.Code == 0, $"publish.sh exited with {publish.Code}: {publish.Out}{publish.Err}");
        Assert.True(File.Exists(Path.Combine(bin, "voron.so")), publish.Out);
        var load = ".load " + Path.Combine(bin, "voron");

        await CreateStoreAsync(store);

        // While this process holds the store, the shell is refused with StoreLockedException's message.
        using (var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(store)))
        {
            var locked = await ShellAsync($"{load}\nSELECT voron_open('{store}');\n");
            Assert.Contains($"voron: The store at '{store}", locked.Err, StringComparison.Ordinal);
            Assert.Contains("is already open by", locked.Err, StringComparison.Ordinal);
        }

        // Reads: the shell prints what Microsoft.Data.Sqlite answers on the same store.
        var script = new StringBuilder()
            .AppendLine(load)
            .AppendLine(CultureInfo.InvariantCulture, $"SELECT voron_open('{store}-missing');")
            .AppendLine(CultureInfo.InvariantCulture, $"SELECT voron_open('{store}');")
            .AppendLine(CultureInfo.InvariantCulture, $"SELECT voron_open('{store}');") // refused: one store at a time
            .AppendLine(".open file:shop?vfs=voron");
        foreach (var query in s_queries)
        {
            script.AppendLine(query + ";");
        }

        script.AppendLine(".open :memory:").AppendLine("SELECT voron_close();");
        var reads = await ShellAsync(script.ToString());
        var lines = reads.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.True(lines.Length > 2, reads.Out + reads.Err);
        Assert.Equal($"opened {store}: 1 SQLite database, 2 collections", lines[0]);
        Assert.Equal($"closed {store}", lines[^1]);
        var errors = reads.Err.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.True(errors.Length == 2, reads.Err); // the two refused voron_open calls, nothing else
        Assert.Contains("the directory does not exist", errors[0], StringComparison.Ordinal);
        Assert.Contains($"the store '{store}' is open; call voron_close() first", errors[1], StringComparison.Ordinal);
        Assert.Equal(LibraryAnswers(store), string.Join('\n', lines[1..^1]));

        // Writes through the shell, read back by the library.
        var writes = await ShellAsync($$"""
            {{load}}
            SELECT voron_open('{{store}}');
            .open file:shop?vfs=voron
            INSERT INTO invoices VALUES ('orders/shell', 42.5);
            INSERT INTO orders(id, body) VALUES ('orders/shell', '{"customer":"customers/3","total":42.5}');
            .open :memory:
            SELECT voron_close();
            """);
        Assert.True(writes.Code == 0 && writes.Err.Length == 0, writes.Out + writes.Err);
        await AssertWrittenAsync(store);

        // An encrypted store: voron_open(path, key_file), with the key file forms the voron tool takes.
        var encrypted = Path.Combine(_directory, "encrypted");
        var keyFile = Path.Combine(_directory, "store.key");
        var badKeyFile = Path.Combine(_directory, "bad.key");
        var key = System.Security.Cryptography.RandomNumberGenerator.GetBytes(32);
        await File.WriteAllTextAsync(keyFile, Convert.ToHexString(key) + "\n");
        await File.WriteAllTextAsync(badKeyFile, "not a key\n");
        var encryptedOptions = StorageEnvironmentOptions.ForDirectory(encrypted);
        encryptedOptions.EncryptionKey = key;
        using (StorageEnvironment.Open(encryptedOptions))
        {
        }

        var keyed = await ShellAsync($"""
            {load}
            SELECT voron_open('{encrypted}');
            SELECT voron_open('{encrypted}', '{badKeyFile}');
            SELECT voron_open('{encrypted}', '{keyFile}');
            SELECT voron_close();
            """);
        var keyErrors = keyed.Err.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.True(keyErrors.Length == 2, keyed.Err);
        Assert.Contains("is encrypted", keyErrors[0], StringComparison.Ordinal);
        Assert.Contains("voron_open(path, key_file)", keyErrors[0], StringComparison.Ordinal);
        Assert.Contains($"The key file '{badKeyFile}' is not a key", keyErrors[1], StringComparison.Ordinal);
        Assert.Equal([$"opened {encrypted}: 0 SQLite databases, 0 collections", $"closed {encrypted}"],
            keyed.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    private static async Task CreateStoreAsync(string directory)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        await using var documents = DocumentStore.Open(environment);
        await using (var session = documents.OpenSession())
        {
            for (var i = 0; i < 5; i++)
            {
                session.StoreRaw("Customer", $"customers/{i}", Encoding.UTF8.GetBytes($$"""{"name":"Customer {{i}}"}"""));
            }

            for (var i = 0; i < 30; i++)
            {
                session.StoreRaw("Order", $"orders/{i}", Encoding.UTF8.GetBytes($$"""{"customer":"customers/{{i % 5}}","total":{{(i * 1.5).ToString(CultureInfo.InvariantCulture)}}}"""));
            }

            await session.SaveChangesAsync();
        }

        using var registration = VoronSqlite.Register(environment, VfsName()).UseDocuments(documents);
        using var connection = new SqliteConnection(registration.ConnectionString("shop") + ";Pooling=False");
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = """
            CREATE VIRTUAL TABLE orders USING voron_docs(Order, customer='$.customer' TEXT, total='$.total' REAL);
            CREATE VIRTUAL TABLE customers USING voron_docs(Customer, name='$.name' TEXT);
            CREATE TABLE invoices(order_id TEXT PRIMARY KEY, amount REAL NOT NULL);
            INSERT INTO invoices SELECT id, total FROM orders;
            """;
        command.ExecuteNonQuery();
    }

    /// <summary>The queries' rows as the shell's list mode prints them (columns joined by '|').</summary>
    private static string LibraryAnswers(string directory)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        using var documents = DocumentStore.Open(environment);
        using var registration = VoronSqlite.Register(environment, VfsName()).UseDocuments(documents);
        using var connection = new SqliteConnection(registration.ConnectionString("shop") + ";Pooling=False");
        connection.Open();
        var lines = new List<string>();
        foreach (var query in s_queries)
        {
            using var command = connection.CreateCommand();
            command.CommandText = query;
            using var reader = command.ExecuteReader();
            while (reader.Read())
            {
                lines.Add(string.Join('|', Enumerable.Range(0, reader.FieldCount).Select(i => Convert.ToString(reader.GetValue(i), CultureInfo.InvariantCulture))));
            }
        }

        Assert.True(lines.Count >= s_queries.Length);
        return string.Join('\n', lines);
    }

    private static async Task AssertWrittenAsync(string directory)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        await using var documents = DocumentStore.Open(environment);
        await using (var session = documents.OpenSession())
        {
            using var document = await session.LoadRawAsync("orders/shell");
            Assert.NotNull(document);
            Assert.Contains("\"customer\":\"customers/3\"", Encoding.UTF8.GetString(document.Json.Span), StringComparison.Ordinal);
        }

        using var registration = VoronSqlite.Register(environment, VfsName()).UseDocuments(documents);
        using var connection = new SqliteConnection(registration.ConnectionString("shop") + ";Pooling=False");
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = "SELECT amount FROM invoices WHERE order_id = 'orders/shell'";
        Assert.Equal(42.5, (double)command.ExecuteScalar()!);
    }

    private static string VfsName() => "extension-tests-" + Guid.NewGuid().ToString("N")[..8];

    private static Task<(int Code, string Out, string Err)> ShellAsync(string script) => RunAsync(ProgramsFactAttribute.Require("sqlite3"), ["-batch"], script);

    /// <summary>Runs a program to its end: exit code, stdout, stderr.</summary>
    private static async Task<(int Code, string Out, string Err)> RunAsync(string program, string[] arguments, string? stdin)
    {
        var start = new ProcessStartInfo(program)
        {
            RedirectStandardInput = stdin is not null,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start)!;
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        if (stdin is not null)
        {
            await process.StandardInput.WriteAsync(stdin);
            process.StandardInput.Close();
        }

        try
        {
            // A guard, not a timing: a process (or one it left behind holding its output) that
            // never ends fails the test, naming it, instead of hanging the run.
            await Task.WhenAll(process.WaitForExitAsync(), output, error).WaitAsync(TimeSpan.FromMinutes(30));
        }
        catch (TimeoutException)
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail($"'{program} {string.Join(' ', arguments)}' did not end, or left a process holding its output, within 30 minutes.");
        }

        return (process.ExitCode, await output, await error);
    }

    public void Dispose()
    {
        if (Directory.Exists(_directory))
        {
            Directory.Delete(_directory, recursive: true);
        }
    }
}
