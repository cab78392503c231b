using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text.RegularExpressions;
using Voron.Testing.Processes;

namespace Voron.Tests.Sql.Crash;

/// <summary>
/// The SIGKILL loop of SqlProcessKillTests for cross-door transactions: a child process
/// (<c>Voron.Testing.Processes crash-child ... sql-docs</c>, Voron.Testing.Processes/DocsCrashChild.cs)
/// runs four writers of <see cref="DocsCrashWorkload"/> on two databases — each SQL transaction
/// changes a row of <c>order_rows</c> and its document in <c>orders</c> — and is killed at a random
/// moment, often while it recovers the store the previous child left. Then
/// (<see cref="DocsCrashOracle"/>): no half transaction; every writer of every run holds the
/// state after all its acknowledged COMMITs and at most the one in flight, and the same state at
/// every later check; integrity_check, DocumentStore.CheckIntegrity and the store's CheckIntegrity pass.
/// </summary>
public sealed partial class DocsProcessKillTests(ITestOutputHelper output)
{
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);

    [Fact]
    public void Kill_9_while_cross_door_transactions_commit_loses_no_acknowledged_commit_and_leaves_nothing_half()
    {
        var seed = TestSeed.Next(output, nameof(DocsProcessKillTests));
        var kills = Math.Max(10, CrashBudget.Kills / 20);
        using var directory = new TempDirectory();
        var store = directory.Combine("store");
        var acknowledged = new Dictionary<int, int>(); // writer -> acknowledged transactions
        var settled = new Dictionary<int, int>(); // writer of a killed run -> transactions found present
        var failures = new List<string>();
        var verified = 0;
        var runs = 0;
        for (var run = 0; run < kills && failures.Count == 0; run++, runs++)
        {
            var random = new Random(CrashHarness.StateSeed(seed, "docs-kill", run));
            var where = $"run {run} (seed {seed})";
            foreach (var line in RunAndKill(store, seed, run, random, where, failures))
            {
                if (AckLine().Match(line) is { Success: true } ack)
                {
                    var writer = int.Parse(ack.Groups[1].Value, CultureInfo.InvariantCulture);
                    acknowledged[writer] = Math.Max(acknowledged.GetValueOrDefault(writer), int.Parse(ack.Groups[2].Value, CultureInfo.InvariantCulture) + 1);
                }
            }

            if (run % 2 == 1 || run == kills - 1)
            {
                Verify(store, seed, (run + 1) * DocsCrashChild.Writers, acknowledged, settled, where, failures);
                verified++;
            }
        }

        output.WriteLine($"{runs} cross-door child processes killed with SIGKILL, {acknowledged.Values.Sum()} acknowledged commits, {verified} verifications, seed {seed}");
        failures.ForEach(output.WriteLine);
        Assert.True(failures.Count == 0, $"{failures.Count} failures; first: {failures.FirstOrDefault()}");
        Assert.NotEmpty(acknowledged);
    }

    private static ConcurrentQueue<string> RunAndKill(string store, int seed, int run, Random random, string where, List<string> failures)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Voron.Testing.Processes.dll"));
        foreach (var argument in new[] { CrashChild.Command, store, seed.ToString(CultureInfo.InvariantCulture), run.ToString(CultureInfo.InvariantCulture), CrashChild.SqlDocs })
        {
            start.ArgumentList.Add(argument);
        }

        using var child = Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start");
        var lines = new ConcurrentQueue<string>();
        using var ready = new ManualResetEventSlim();
        using var committed = new ManualResetEventSlim();
        var reader = new Thread(() =>
        {
            while (child.StandardOutput.ReadLine() is { } line)
            {
                lines.Enqueue(line);
                if (line == "READY")
                {
                    ready.Set();
                }
                else if (line.StartsWith("ACK ", StringComparison.Ordinal))
                {
                    committed.Set();
                }
            }
        });
        reader.Start();
        var errors = child.StandardError.ReadToEndAsync();
        // A quarter of the kills land while the child starts or recovers, a quarter as its writers
        // start, half while they commit (the first commits of a fresh process are slow: JIT).
        var when = random.Next(4);
        if (when == 0)
        {
            Thread.Sleep(random.Next(300));
        }
        else if (!WaitFor(when == 1 ? ready : committed, child))
        {
            if (!child.HasExited)
            {
                failures.Add($"{where}: the child did not {(when == 1 ? "open the store" : "commit")} within {ReadyTimeout.TotalSeconds} s");
            }
        }
        else
        {
            Thread.Sleep(when == 1 ? random.Next(5) : random.Next(400));
        }

        if (child.HasExited)
        {
            failures.Add($"{where}: the child exited by itself with code {child.ExitCode}: {errors.Result}");
        }

        child.Kill();
        child.WaitForExit();
        reader.Join();
        return lines;
    }

    /// <summary>Waits for <paramref name="signal"/>; false when the child exits first or it takes longer than <see cref="ReadyTimeout"/>.</summary>
    private static bool WaitFor(ManualResetEventSlim signal, Process child)
    {
        var waited = Stopwatch.StartNew();
        while (!signal.Wait(50))
        {
            if (child.HasExited || waited.Elapsed > ReadyTimeout)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// Checks the store the last kill left. Every writer so far is finished (its child is dead), so
    /// the number of its transactions present is final: between its acknowledged ones and one more
    /// (the one in flight), and once found, the same at every later check.
    /// </summary>
    private static void Verify(string store, int seed, int writers, Dictionary<int, int> acknowledged, Dictionary<int, int> settled, string where, List<string> failures)
    {
        if (!Directory.Exists(store))
        {
            return;
        }

        try
        {
            var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(store));
            try
            {
                using var documents = DocumentStore.Open(environment);
                using var registration = VoronSqlite.Register(environment, "voron-docs-kill-" + Guid.NewGuid().ToString("N")[..12]).UseDocuments(documents);
                var open = Enumerable.Range(0, 2).Select(db => DocsCrashChild.Open(registration, db)).ToList();
                try
                {
                    if (open.Any(c => c.Scalar<long>("SELECT count(*) FROM sqlite_schema WHERE name IN ('orders', 'order_rows')") != 2))
                    {
                        if (acknowledged.Count != 0)
                        {
                            failures.Add($"{where}: a database lost its tables after commits were acknowledged");
                        }

                        return;
                    }

                    var found = new Dictionary<int, int>();
                    var failure = DocsCrashOracle.Check(documents, open, seed, writers, w => settled.TryGetValue(w, out var n) ? (n, n) : (acknowledged.GetValueOrDefault(w), acknowledged.GetValueOrDefault(w) + 1), found)
                        ?? DocsCrashOracle.CheckIntegrity(documents, open);
                    if (failure != null)
                    {
                        failures.Add($"{where}: {failure}");
                        return;
                    }

                    foreach (var (writer, n) in found)
                    {
                        settled[writer] = n;
                    }
                }
                finally
                {
                    open.ForEach(c => c.Dispose());
                }
            }
            finally
            {
                environment.CloseWithoutFlush(); // leave the journal as the kill left it for the next child
            }
        }
        catch (Exception e) when (e is CorruptionException or FormatVersionException or IOException or InvalidOperationException or SqliteException)
        {
            failures.Add($"{where}: opening or checking the store after the kill failed: {e}");
        }
    }

    [GeneratedRegex("^ACK ([0-9]+) ([0-9]+)$")]
    private static partial Regex AckLine();
}
