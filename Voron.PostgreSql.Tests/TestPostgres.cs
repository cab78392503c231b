using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Npgsql;

namespace Voron.PostgreSql.Tests;

/// <summary>
/// A throwaway PostgreSQL cluster for this test process: initdb into a temporary directory, started
/// with pg_ctl on a free loopback port (no fsync: nothing here must survive), stopped and deleted
/// when the process exits. PostgreSQL refuses to run as root, so as root the programs run as the
/// <c>postgres</c> user (runuser) in a directory it owns. Started once, at test discovery
/// (<see cref="PostgresFactAttribute"/>); each test takes its own database (<see cref="CreateDatabaseAsync"/>).
/// </summary>
internal sealed class TestPostgres
{
    private static readonly Lazy<(TestPostgres? Server, string? WhyNot)> Shared = new(Start);

    private readonly string _directory;
    private readonly string _pgCtl;
    private readonly bool _asPostgresUser;
    private int _databases;

    private TestPostgres(string directory, string binaries, int port, bool asPostgresUser)
    {
        _directory = directory;
        _pgCtl = Path.Combine(binaries, "pg_ctl");
        Port = port;
        _asPostgresUser = asPostgresUser;
        Psql = FindProgram("psql", binaries);
    }

    /// <summary>The server, or null with the reason it could not be had.</summary>
    public static (TestPostgres? Server, string? WhyNot) Instance => Shared.Value;

    /// <summary>The running server; fails the test with the reason when there is none.</summary>
    public static TestPostgres Require() => Instance.Server ?? throw new Xunit.Sdk.XunitException($"no PostgreSQL server: {Instance.WhyNot}");

    public int Port { get; }

    /// <summary>psql, or null when the client is not installed.</summary>
    public string? Psql { get; }

    /// <summary>An Npgsql connection string to <paramref name="database"/>.</summary>
    public string ConnectionString(string database = "postgres") => $"Host=127.0.0.1;Port={Port};Username=postgres;Database={database};Pooling=false";

    /// <summary>The same as a postgresql:// URI.</summary>
    public string Uri(string database) => $"postgresql://postgres@127.0.0.1:{Port}/{database}";

    /// <summary>A new, empty database of its own for one test.</summary>
    public async Task<string> CreateDatabaseAsync()
    {
        var name = $"t{Interlocked.Increment(ref _databases)}_{Guid.NewGuid().ToString("N")[..8]}";
        await using var connection = new NpgsqlConnection(ConnectionString());
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand($"CREATE DATABASE {name}", connection);
        await command.ExecuteNonQueryAsync();
        return name;
    }

    /// <summary>Runs psql on <paramref name="database"/> with <paramref name="sql"/>, unaligned and without headers; returns its output.</summary>
    public string RunPsql(string database, string sql)
    {
        var psql = Psql ?? throw new Xunit.Sdk.XunitException("psql is not installed (postgresql-client)");
        var info = new ProcessStartInfo(psql) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in new[] { "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", Port.ToString(System.Globalization.CultureInfo.InvariantCulture), "-U", "postgres", "-d", database, "-c", sql })
        {
            info.ArgumentList.Add(argument);
        }

        using var process = Process.Start(info)!;
        var error = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        if (process.ExitCode != 0)
        {
            throw new Xunit.Sdk.XunitException($"psql -c \"{sql}\" failed ({process.ExitCode}): {error.Result}");
        }

        return output.Trim();
    }

    private static (TestPostgres?, string?) Start()
    {
        if (!OperatingSystem.IsLinux())
        {
            return (null, "the test cluster is started the Linux way (initdb, pg_ctl, runuser)");
        }

        var binaries = FindBinaries();
        if (binaries is null)
        {
            return (null, "initdb and pg_ctl are not installed (PATH, /usr/local/bin, /usr/lib/postgresql/*/bin): install PostgreSQL 15 (apt-get install postgresql-15)");
        }

        var asRoot = Environment.UserName == "root";
        if (asRoot && Run("id", ["-u", "postgres"]) is not (0, _))
        {
            return (null, "running as root and there is no 'postgres' user to run PostgreSQL as (PostgreSQL refuses root): create one (useradd postgres)");
        }

        DeleteStale();
        var directory = Path.Combine(Path.GetTempPath(), "voron-pg-" + Guid.NewGuid().ToString("N")[..12]);
        try
        {
            Directory.CreateDirectory(directory);
            if (asRoot && Run("chown", ["postgres", directory]) is (not 0, var chownError))
            {
                return (null, $"chown postgres {directory} failed: {chownError}");
            }

            var data = Path.Combine(directory, "data");
            if (RunAs(asRoot, Path.Combine(binaries, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]) is (not 0, var initError))
            {
                Delete(directory);
                return (null, $"initdb failed: {initError.Trim()}");
            }

            string? lastError = null;
            for (var attempt = 0; attempt < 3; attempt++)
            {
                var port = FreePort();
                var options = $"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50";
                var (code, error) = RunAs(asRoot, Path.Combine(binaries, "pg_ctl"), ["-D", data, "-o", options, "-l", Path.Combine(directory, "log"), "-w", "-t", "60", "start"]);
                if (code == 0)
                {
                    var server = new TestPostgres(directory, binaries, port, asRoot);
                    AppDomain.CurrentDomain.ProcessExit += (_, _) => server.Stop();
                    return (server, null);
                }

                lastError = error.Trim() + " " + (File.Exists(Path.Combine(directory, "log")) ? File.ReadAllText(Path.Combine(directory, "log")) : "");
            }

            Delete(directory);
            return (null, $"pg_ctl start failed: {lastError}");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or System.ComponentModel.Win32Exception)
        {
            Delete(directory);
            return (null, $"could not start PostgreSQL: {e.Message}");
        }
    }

    /// <summary>
    /// Stops the server and deletes its directory from a detached shell (setsid): the test host
    /// may end this process right after ProcessExit begins, and the shell finishes the job anyway.
    /// </summary>
    private void Stop()
    {
        var stop = $"{(_asPostgresUser ? "runuser -u postgres -- " : "")}'{_pgCtl}' -D '{Path.Combine(_directory, "data")}' -m immediate -w stop >/dev/null 2>&1; rm -rf '{_directory}'";
        try
        {
            using var process = Process.Start(new ProcessStartInfo("setsid", ["-f", "sh", "-c", stop]) { UseShellExecute = false, WorkingDirectory = "/" })!;
            process.WaitForExit(10_000);
        }
        catch (System.ComponentModel.Win32Exception)
        {
            RunAs(_asPostgresUser, _pgCtl, ["-D", Path.Combine(_directory, "data"), "-m", "immediate", "-w", "stop"]);
            Delete(_directory);
        }
    }

    /// <summary>Deletes the directories of earlier test clusters whose server no longer runs (a test host killed before it could clean up).</summary>
    private static void DeleteStale()
    {
        foreach (var directory in Directory.GetDirectories(Path.GetTempPath(), "voron-pg-*"))
        {
            var pidFile = Path.Combine(directory, "data", "postmaster.pid");
            try
            {
                if (File.Exists(pidFile) && int.TryParse(File.ReadLines(pidFile).FirstOrDefault(), out var pid) && Directory.Exists($"/proc/{pid}"))
                {
                    continue; // another test process's server, running
                }

                if (Directory.GetLastWriteTimeUtc(directory) < DateTime.UtcNow.AddMinutes(-1))
                {
                    Delete(directory);
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // someone else's; left alone
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

    private static string? FindProgram(string name, string binaries) =>
        new[] { binaries }.Concat((Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
            .Select(d => Path.Combine(d, name)).FirstOrDefault(File.Exists);

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    private static (int Code, string Error) RunAs(bool asPostgresUser, string program, string[] arguments) =>
        asPostgresUser ? Run("runuser", ["-u", "postgres", "--", program, .. arguments]) : Run(program, arguments);

    private static (int Code, string Error) Run(string program, string[] arguments)
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

    private static void Delete(string directory)
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
}
