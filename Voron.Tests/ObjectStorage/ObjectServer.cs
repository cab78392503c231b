using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace Voron.Tests.ObjectStorage;

/// <summary>
/// A real object-storage server for a test, run from the npm packages installed under
/// VORON_OBJECT_SERVERS (.ci/run installs s3rver 3.7.1 and azurite 3.35.0 there): started on a free
/// loopback port over a temporary directory, stopped and deleted by Dispose. No mocks: the tests
/// speak the wire protocol to the server.
/// </summary>
internal sealed class ObjectServer : IDisposable
{
    public const string Variable = "VORON_OBJECT_SERVERS";
    public const string Bucket = "voron";
    // Azurite's well-known development account (its README), not a secret.
    private const string AzuriteAccount =
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;" +
        "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;";

    private readonly TempDirectory _data = new();
    private readonly string _script;
    private readonly Func<int, string, string> _arguments;
    private Process? _process;

    private ObjectServer(string script, Func<int, string, string> arguments)
    {
        _script = script;
        _arguments = arguments;
        Port = FreePort();
    }

    public int Port { get; }

    public Uri Endpoint => new($"http://127.0.0.1:{Port}");

    public string AzuriteConnectionString => $"{AzuriteAccount}BlobEndpoint=http://127.0.0.1:{Port}/devstoreaccount1;";

    /// <summary>Why the servers cannot run here (for the skip reason), or null.</summary>
    public static string? WhyNot(string package)
    {
        var root = Environment.GetEnvironmentVariable(Variable);
        if (string.IsNullOrEmpty(root))
        {
            return $"{Variable} is not set. Run `npm install --prefix .tools/servers s3rver@3.7.1 azurite@3.35.0` and set {Variable}=<repo>/.tools/servers (.ci/run does both)";
        }

        if (!Directory.Exists(Path.Combine(root, "node_modules", package)))
        {
            return $"{Variable}={root} has no node_modules/{package}: run `npm install --prefix {root} s3rver@3.7.1 azurite@3.35.0`";
        }

        return FindNode() == null ? "node is not on PATH (Node 20 runs both servers)" : null;
    }

    public static ObjectServer StartS3rver()
    {
        var script = Path.Combine(Environment.GetEnvironmentVariable(Variable)!, "node_modules", "s3rver", "bin", "s3rver.js");
        var server = new ObjectServer(script, (port, data) => $"\"{script}\" -d \"{data}\" -a 127.0.0.1 -p {port} -s --configure-bucket {Bucket}");
        server.Start();
        return server;
    }

    public static ObjectServer StartAzurite()
    {
        var script = Path.Combine(Environment.GetEnvironmentVariable(Variable)!, "node_modules", "azurite", "dist", "src", "blob", "main.js");
        var server = new ObjectServer(script,
            (port, data) => $"\"{script}\" --blobHost 127.0.0.1 --blobPort {port} -l \"{data}\" -s --skipApiVersionCheck --disableTelemetry");
        server.Start();
        return server;
    }

    /// <summary>Starts the server (again, after <see cref="Stop"/>: same port, same data) and waits until it accepts connections.</summary>
    public void Start()
    {
        _process = Process.Start(new ProcessStartInfo(FindNode()!, _arguments(Port, _data.Path))
        {
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        })!;
        _process.OutputDataReceived += (_, _) => { };
        _process.ErrorDataReceived += (_, _) => { };
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();

        // Readiness, not timing: wait for the port (a slow machine waits longer), fail if the process ends.
        var deadline = DateTime.UtcNow.AddMinutes(2);
        while (true)
        {
            if (_process.HasExited)
            {
                throw new InvalidOperationException($"'{_script}' exited with {_process.ExitCode} before it listened on port {Port}");
            }

            try
            {
                using var client = new TcpClient();
                client.Connect(IPAddress.Loopback, Port);
                return;
            }
            catch (SocketException) when (DateTime.UtcNow < deadline)
            {
                Thread.Sleep(50);
            }
        }
    }

    /// <summary>Stops the server (the destination is down); its data stays for the next <see cref="Start"/>.</summary>
    public void Stop()
    {
        if (_process is { } process)
        {
            if (!process.HasExited)
            {
                process.Kill(entireProcessTree: true);
            }

            process.WaitForExit();
            process.Dispose();
            _process = null;
        }
    }

    public void Dispose()
    {
        Stop();
        _data.Dispose();
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    private static string? FindNode() =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator)
            .Select(directory => Path.Combine(directory, "node"))
            .FirstOrDefault(File.Exists);
}

/// <summary>A fact that needs an object-storage server from npm (<see cref="ObjectServer"/>): skipped with what to install and set when it cannot run.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class ObjectServerFactAttribute : FactAttribute
{
    public ObjectServerFactAttribute(string package)
    {
        if (ObjectServer.WhyNot(package) is { } reason)
        {
            Skip = $"needs the {package} server: {reason}.";
        }
    }
}
