using System.Net;
using System.Net.Sockets;
using Npgsql;

namespace Voron.LoadTests.Experiments.Replicate;

/// <summary>
/// The PostgreSQL server the export workload writes into: a throwaway cluster (initdb into a
/// directory of the run, started with pg_ctl on a free loopback port with PostgreSQL's default,
/// durable settings: fsync on, synchronous_commit on), stopped and deleted by Dispose; or a server
/// the run names by connection string, left as it is. PostgreSQL refuses to run as root, so as
/// root the programs run as the <c>postgres</c> user (runuser) in a directory it owns. Each run of
/// the workload takes a database of its own (<see cref="CreateDatabaseAsync"/>).
/// </summary>
internal sealed class PostgresCluster : IDisposable
{
    private readonly string? _directory;
    private readonly string? _pgCtl;
    private readonly bool _asPostgresUser;
    private readonly NpgsqlConnectionStringBuilder _server;
    private int _databases;

    private PostgresCluster(NpgsqlConnectionStringBuilder server, string description, string? directory = null, string? pgCtl = null, bool asPostgresUser = false)
    {
        _server = server;
        Description = description;
        _directory = directory;
        _pgCtl = pgCtl;
        _asPostgresUser = asPostgresUser;
    }

    /// <summary>What the server is and how it is set up, for the report.</summary>
    public string Description { get; }

    /// <summary>The server the connection string names (an Npgsql connection string; its database is where new ones are created from).</summary>
    public static PostgresCluster Connect(string connectionString) =>
        new(new NpgsqlConnectionStringBuilder(connectionString), $"the server --postgres names ({new NpgsqlConnectionStringBuilder(connectionString).Host}), its own settings");

    /// <summary>A throwaway cluster under <paramref name="parent"/>, or null and why it cannot start here.</summary>
    public static (PostgresCluster? Cluster, string? WhyNot) Start(string parent)
    {
        if (!OperatingSystem.IsLinux())
        {
            return (null, "the throwaway cluster is started the Linux way (initdb, pg_ctl, runuser); give a server with --postgres");
        }

        var binaries = FindBinaries();
        if (binaries is null)
        {
            return (null, "initdb and pg_ctl are not installed (PATH, /usr/local/bin, /usr/lib/postgresql/*/bin): install PostgreSQL 15, or give a server with --postgres");
        }

        var asRoot = Environment.UserName == "root";
        if (asRoot && Run("id", ["-u", "postgres"]) is not (0, _))
        {
            return (null, "running as root and there is no 'postgres' user to run PostgreSQL as (PostgreSQL refuses root): create one (useradd postgres), or give a server with --postgres");
        }

        // Under the run's directory, so the cluster writes to the disk measured; where the postgres
        // user cannot reach it (a parent only root may enter), under the temporary directory.
        string? directory = null;
        string? whyNot = null;
        foreach (var candidate in new[] { Path.Combine(parent, "postgres"), Path.Combine(Path.GetTempPath(), "voron-replicate-pg-" + Guid.NewGuid().ToString("N")[..12]) })
        {
            Directory.CreateDirectory(candidate);
            if (!asRoot || (Run("chown", ["postgres", candidate]) is (0, _) && Run("runuser", ["-u", "postgres", "--", "test", "-w", candidate]) is (0, _)))
            {
                directory = candidate;
                break;
            }

            whyNot = $"the postgres user cannot write {candidate}";
            Directory.Delete(candidate, recursive: true);
        }

        if (directory is null)
        {
            return (null, whyNot);
        }

        var data = Path.Combine(directory, "data");
        if (RunAs(asRoot, Path.Combine(binaries, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C"]) is (not 0, var initError))
        {
            DeleteDirectory(directory);
            return (null, $"initdb failed: {initError.Trim()}");
        }

        var port = FreePort();
        var pgCtl = Path.Combine(binaries, "pg_ctl");
        var log = Path.Combine(directory, "log");
        var (code, error) = RunAs(asRoot, pgCtl, ["-D", data, "-o", $"-p {port} -k {directory} -c listen_addresses=127.0.0.1", "-l", log, "-w", "-t", "120", "start"]);
        if (code != 0)
        {
            var why = $"pg_ctl start failed: {error.Trim()} {(File.Exists(log) ? File.ReadAllText(log) : "")}";
            DeleteDirectory(directory);
            return (null, why);
        }

        var version = Run(Path.Combine(binaries, "postgres"), ["--version"]).Output.Trim();
        var server = new NpgsqlConnectionStringBuilder { Host = "127.0.0.1", Port = port, Username = "postgres", Database = "postgres", Pooling = false };
        return (new PostgresCluster(server, $"{version}, a throwaway cluster on 127.0.0.1:{port} (loopback) in {directory}, PostgreSQL's defaults: fsync on, synchronous_commit on, full_page_writes on",
            directory, pgCtl, asRoot), null);
    }

    /// <summary>A new, empty database; returns its connection string.</summary>
    public async Task<string> CreateDatabaseAsync()
    {
        var name = $"replicate_{Interlocked.Increment(ref _databases)}_{Guid.NewGuid().ToString("N")[..8]}";
        await using var connection = new NpgsqlConnection(_server.ConnectionString);
        await connection.OpenAsync().ConfigureAwait(false);
        await using var command = new NpgsqlCommand($"CREATE DATABASE {name}", connection);
        await command.ExecuteNonQueryAsync().ConfigureAwait(false);
        return new NpgsqlConnectionStringBuilder(_server.ConnectionString) { Database = name }.ConnectionString;
    }

    /// <summary>Drops the database <paramref name="connectionString"/> names (made by <see cref="CreateDatabaseAsync"/>).</summary>
    public async Task DropDatabaseAsync(string connectionString)
    {
        var name = new NpgsqlConnectionStringBuilder(connectionString).Database;
        NpgsqlConnection.ClearAllPools();
        await using var connection = new NpgsqlConnection(_server.ConnectionString);
        await connection.OpenAsync().ConfigureAwait(false);
        await using var command = new NpgsqlCommand($"DROP DATABASE IF EXISTS {name} WITH (FORCE)", connection);
        await command.ExecuteNonQueryAsync().ConfigureAwait(false);
    }

    /// <summary>Rows in <paramref name="table"/> of the database <paramref name="connectionString"/> names.</summary>
    public static async Task<long> CountAsync(string connectionString, string table)
    {
        await using var connection = new NpgsqlConnection(connectionString);
        await connection.OpenAsync().ConfigureAwait(false);
        await using var command = new NpgsqlCommand($"SELECT count(*) FROM {table}", connection);
        return (long)(await command.ExecuteScalarAsync().ConfigureAwait(false))!;
    }

    /// <summary>Stops a throwaway cluster (fast shutdown) and deletes its directory; a named server is left alone.</summary>
    public void Dispose()
    {
        NpgsqlConnection.ClearAllPools();
        if (_directory is null || _pgCtl is null)
        {
            return;
        }

        RunAs(_asPostgresUser, _pgCtl, ["-D", Path.Combine(_directory, "data"), "-m", "fast", "-w", "stop"]);
        DeleteDirectory(_directory);
    }

    private static void DeleteDirectory(string directory)
    {
        for (var attempt = 0; attempt < 20 && Directory.Exists(directory); attempt++)
        {
            try
            {
                Directory.Delete(directory, recursive: true);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                Thread.Sleep(100); // the server's last processes may still be removing their files
            }
        }
    }

    private static string? FindBinaries()
    {
        var candidates = (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Append("/usr/local/bin")
            .Concat(Directory.Exists("/usr/lib/postgresql") ? Directory.GetDirectories("/usr/lib/postgresql").OrderDescending().Select(d => Path.Combine(d, "bin")) : []);
        return candidates.FirstOrDefault(d => File.Exists(Path.Combine(d, "initdb")) && File.Exists(Path.Combine(d, "pg_ctl")) && File.Exists(Path.Combine(d, "postgres")));
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    private static (int Code, string Output) RunAs(bool asPostgresUser, string program, string[] arguments) =>
        asPostgresUser ? Run("runuser", ["-u", "postgres", "--", program, .. arguments]) : Run(program, arguments);

    private static (int Code, string Output) Run(string program, string[] arguments)
    {
        var info = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false, WorkingDirectory = "/" };
        foreach (var argument in arguments)
        {
            info.ArgumentList.Add(argument);
        }

        try
        {
            using var process = Process.Start(info)!;
            var output = process.StandardOutput.ReadToEndAsync();
            var error = process.StandardError.ReadToEnd();
            process.WaitForExit();
            return (process.ExitCode, error + output.Result);
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            return (-1, $"{program} could not run: {e.Message}");
        }
    }
}
