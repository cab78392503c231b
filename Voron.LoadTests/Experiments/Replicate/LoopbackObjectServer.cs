using System.Net;
using System.Net.Sockets;

namespace Voron.LoadTests.Experiments.Replicate;

/// <summary>
/// An object-storage server from the npm folder the run names (s3rver 3.7.1 or Azurite 3.35.0, as
/// docs/dependencies.md pins them), started on a free loopback port over a directory of the run,
/// stopped by Dispose. The experiment speaks the wire protocol to it, as a store would to S3 or
/// Azure Blob; the server's own writes go to the run's disk.
/// </summary>
internal sealed class LoopbackObjectServer : IDisposable
{
    public const string S3rverPackage = "s3rver";
    public const string AzuritePackage = "azurite";
    public const string Bucket = "voron";

    // Azurite's well-known development account (its README), not a secret.
    private const string AzuriteAccount =
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;" +
        "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;";

    private readonly Process _process;

    private LoopbackObjectServer(Process process, int port, string version)
    {
        _process = process;
        Port = port;
        Version = version;
    }

    public int Port { get; }

    /// <summary>The package's version, from its package.json.</summary>
    public string Version { get; }

    public Uri Endpoint => new($"http://127.0.0.1:{Port}");

    public string AzuriteConnectionString => $"{AzuriteAccount}BlobEndpoint=http://127.0.0.1:{Port}/devstoreaccount1;";

    /// <summary>Why <paramref name="package"/> cannot run from <paramref name="root"/> (what to install or set), or null.</summary>
    public static string? WhyNot(string? root, string package)
    {
        if (string.IsNullOrEmpty(root))
        {
            return $"set {ReplicateExperiment.ObjectServersVariable} (or --object-servers) to a folder with `npm install --prefix <folder> s3rver@3.7.1 azurite@3.35.0` done";
        }

        if (!Directory.Exists(Path.Combine(root, "node_modules", package)))
        {
            return $"{root} has no node_modules/{package}: run `npm install --prefix {root} s3rver@3.7.1 azurite@3.35.0`";
        }

        return FindNode() == null ? "node is not on PATH (Node 20 runs both servers)" : null;
    }

    /// <summary>s3rver on a free port with the bucket <see cref="Bucket"/>, its objects under <paramref name="data"/>.</summary>
    public static LoopbackObjectServer StartS3rver(string root, string data)
    {
        var script = Path.Combine(root, "node_modules", S3rverPackage, "bin", "s3rver.js");
        return Start(root, S3rverPackage, port => [script, "-d", data, "-a", "127.0.0.1", "-p", port, "-s", "--configure-bucket", Bucket]);
    }

    /// <summary>Azurite's blob service on a free port, its blobs under <paramref name="data"/>.</summary>
    public static LoopbackObjectServer StartAzurite(string root, string data)
    {
        var script = Path.Combine(root, "node_modules", AzuritePackage, "dist", "src", "blob", "main.js");
        return Start(root, AzuritePackage, port => [script, "--blobHost", "127.0.0.1", "--blobPort", port, "-l", data, "-s", "--skipApiVersionCheck", "--disableTelemetry"]);
    }

    private static LoopbackObjectServer Start(string root, string package, Func<string, string[]> arguments)
    {
        var port = FreePort();
        var info = new ProcessStartInfo(FindNode()!) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in arguments(port.ToString(CultureInfo.InvariantCulture)))
        {
            info.ArgumentList.Add(argument);
        }

        var process = Process.Start(info) ?? throw new InvalidOperationException($"node did not start {package}.");
        process.OutputDataReceived += (_, _) => { };
        process.ErrorDataReceived += (_, _) => { };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        var server = new LoopbackObjectServer(process, port, PackageVersion(root, package));

        // Readiness, not timing: wait for the port (a busy machine waits longer), fail if the process ends.
        var deadline = DateTime.UtcNow.AddMinutes(2);
        while (true)
        {
            if (process.HasExited)
            {
                var code = process.ExitCode;
                server.Dispose();
                throw new InvalidOperationException($"{package} exited with {code} before it listened on 127.0.0.1:{port}; run it by hand from {root} to see why.");
            }

            try
            {
                using var client = new TcpClient();
                client.Connect(IPAddress.Loopback, port);
                return server;
            }
            catch (SocketException) when (DateTime.UtcNow < deadline)
            {
                Thread.Sleep(50);
            }
        }
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
        }

        _process.WaitForExit();
        _process.Dispose();
    }

    private static string PackageVersion(string root, string package)
    {
        var file = Path.Combine(root, "node_modules", package, "package.json");
        using var json = System.Text.Json.JsonDocument.Parse(File.ReadAllText(file));
        return json.RootElement.TryGetProperty("version", out var version) ? version.GetString() ?? "?" : "?";
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    private static string? FindNode() =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(directory => Path.Combine(directory, "node"))
            .FirstOrDefault(File.Exists);
}
