using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text.RegularExpressions;
using Voron.Testing.Processes;

namespace Voron.Tests.Core.Crash;

/// <summary>
/// CT4. a real process on the real file system, killed with SIGKILL. The child
/// (<c>Voron.Testing.Processes crash-child</c>, Voron.Testing.Processes/CrashChild.cs) writes through explicit and
/// merged transactions with background flushing and prints one line per acknowledged commit;
/// it is killed at a random moment — often while it opens and recovers the store the previous
/// child left — and the store is then checked: every key ever acknowledged, in any run, is
/// present with its exact value, and CheckIntegrity passes. Every other kill is followed
/// directly by the next child, so recovery also runs in a process that is itself killed. A kill
/// does not lose the OS page cache, so this checks the real code paths, not power loss (the
/// simulator does that). The second loop runs the store in lazy durability mode, whose
/// acknowledgements a kill must not lose either.
/// </summary>
public sealed partial class ProcessKillTests(ITestOutputHelper output)
{
    private const int Loops = 2;
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);

    [Fact]
    public void Kill_9_at_random_moments_loses_no_acknowledged_commit() => KillLoops(CrashBudget.Kills, portable: false);

    /// <summary>The same on an encrypted (sealed) store: the child opens it with a key file's key,
    /// so kills land in sealing, opening and full-image journaling too (fewer kills by default, as the portable loop).</summary>
    [Fact]
    public void Kill_9_at_random_moments_loses_no_acknowledged_commit_of_an_encrypted_store()
    {
        using var keys = new TempDirectory();
        var keyFile = keys.Combine("store.key");
        File.WriteAllText(keyFile, Convert.ToHexString(Voron.Tests.Core.Sealing.SealingFixtures.Key(71))); // the hex form of a key file
        KillLoops(CrashBudget.PortableKills, portable: false, keyFile);
    }

    /// <summary>The same on the portable file system (Platform/Portable): fewer kills by default
    /// (<see cref="CrashBudget.PortableKills"/>), all of them with VORON_PORTABLE_FULL=1.</summary>
    [Fact]
    public void Kill_9_at_random_moments_loses_no_acknowledged_commit_on_the_portable_file_system() =>
        KillLoops(CrashBudget.PortableKills, portable: true);

    private void KillLoops(int kills, bool portable, string? keyFile = null)
    {
        var seed = TestSeed.Next(output, nameof(ProcessKillTests) + (portable ? " (portable)" : "") + (keyFile != null ? " (encrypted)" : ""));
        var failures = new ConcurrentQueue<string>();
        var statistics = new ConcurrentBag<(int Runs, int Acks, int Verified, int BeforeReady)>();
        var loops = Enumerable.Range(0, Loops).Select(loop => new Thread(() =>
        {
            using var directory = new TempDirectory();
            try
            {
                statistics.Add(KillLoop(directory.Combine("store"), seed, loop, kills / Loops, failures, portable, keyFile));
            }
            catch (Exception e)
            {
                failures.Enqueue($"loop {loop}: {e}");
            }
        })).ToList();
        loops.ForEach(t => t.Start());
        loops.ForEach(t => t.Join());

        var runs = statistics.Sum(s => s.Runs);
        output.WriteLine($"{runs} processes killed with SIGKILL ({statistics.Sum(s => s.BeforeReady)} before the store was open), " +
                         $"{statistics.Sum(s => s.Acks)} acknowledged commits, {statistics.Sum(s => s.Verified)} verifications, seed {seed}");
        foreach (var failure in failures.Take(20))
        {
            output.WriteLine(failure);
        }

        Assert.True(failures.IsEmpty, $"{failures.Count} failures; first: {failures.FirstOrDefault()}");
        Assert.Equal(kills / Loops * Loops, runs);
    }

    private static (int Runs, int Acks, int Verified, int BeforeReady) KillLoop(string directory, int seed, int loop, int runs, ConcurrentQueue<string> failures, bool portable,
        string? keyFile)
    {
        var acknowledged = new Dictionary<string, string>(StringComparer.Ordinal);
        var verified = 0;
        var beforeReady = 0;
        for (var run = 0; run < runs && failures.Count < 20; run++)
        {
            var random = new Random(CrashHarness.StateSeed(seed, "kill", loop, run));
            var where = $"loop {loop} run {run} (seed {seed})";
            var child = Start(directory, seed, (loop * 100_000) + run, lazy: loop % 2 == 1, portable, keyFile);
            var lines = new ConcurrentQueue<string>();
            using var ready = new ManualResetEventSlim();
            var reader = new Thread(() =>
            {
                while (child.StandardOutput.ReadLine() is { } line)
                {
                    lines.Enqueue(line);
                    if (line.StartsWith("READY ", StringComparison.Ordinal))
                    {
                        ready.Set();
                    }
                }
            });
            reader.Start();
            var errors = child.StandardError.ReadToEndAsync();
            try
            {
                if (random.Next(4) == 0)
                {
                    Thread.Sleep(random.Next(250)); // maybe still starting or recovering
                    beforeReady += ready.IsSet ? 0 : 1;
                }
                else if (ready.Wait(ReadyTimeout))
                {
                    Thread.Sleep(random.Next(3) == 0 ? random.Next(5) : random.Next(400));
                }
                else
                {
                    failures.Enqueue($"{where}: the child did not open the store within {ReadyTimeout.TotalSeconds} s");
                }

                if (child.HasExited)
                {
                    failures.Enqueue($"{where}: the child exited by itself with code {child.ExitCode}: {errors.Result}");
                }

                child.Kill();
                child.WaitForExit();
                reader.Join();
            }
            finally
            {
                if (!child.HasExited)
                {
                    child.Kill();
                }

                child.Dispose();
            }

            foreach (var line in lines)
            {
                if (AckLine().Match(line) is { Success: true } ack)
                {
                    acknowledged[ack.Groups[1].Value] = ack.Groups[2].Value;
                }
            }

            // Every other kill, and after the last, check the store here; otherwise the next
            // child recovers it first.
            if (run % 2 == 1 || run == runs - 1)
            {
                Verify(directory, acknowledged, where, failures, portable, keyFile);
                verified++;
            }
        }

        return (runs, acknowledged.Count, verified, beforeReady);
    }

    internal static Process Start(string directory, int seed, int run, bool lazy, bool portable, string? keyFile = null)
    {
        var child = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        child.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Voron.Testing.Processes.dll"));
        child.ArgumentList.Add(CrashChild.Command);
        child.ArgumentList.Add(directory);
        child.ArgumentList.Add(seed.ToString(System.Globalization.CultureInfo.InvariantCulture));
        child.ArgumentList.Add(run.ToString(System.Globalization.CultureInfo.InvariantCulture));
        if (lazy || portable)
        {
            child.ArgumentList.Add(portable ? (lazy ? CrashChild.PortableLazy : CrashChild.Portable) : CrashChild.Lazy);
        }

        if (keyFile != null)
        {
            child.Environment[CrashChild.KeyFileVariable] = keyFile;
        }

        return Process.Start(child) ?? throw new InvalidOperationException("dotnet did not start");
    }

    private static void Verify(string directory, Dictionary<string, string> acknowledged, string where, ConcurrentQueue<string> failures, bool portable,
        string? keyFile)
    {
        if (acknowledged.Count == 0 && !Directory.Exists(directory))
        {
            return;
        }

        try
        {
            var options = StorageEnvironmentOptions.ForDirectory(directory);
            options.UsePortableFileSystem = portable;
            options.EncryptionKey = keyFile != null ? Voron.Sealing.EncryptionKeyFile.Read(keyFile) : null;
            var environment = StorageEnvironment.Open(options);
            try
            {
                using (var read = environment.BeginRead())
                {
                    var tree = read.OpenTree("kill");
                    var lost = 0;
                    foreach (var (key, hash) in acknowledged)
                    {
                        var value = tree?.Get(System.Text.Encoding.UTF8.GetBytes(key));
                        if (value == null || CrashChild.Hash(value) != hash)
                        {
                            if (lost++ < 3)
                            {
                                failures.Enqueue($"{where}: acknowledged key {key} is {(value == null ? "missing" : "there with another value")} after the kill");
                            }
                        }
                    }
                }

                environment.CheckIntegrity();
            }
            finally
            {
                environment.CloseWithoutFlush(); // leave the journal as the kill left it for the next child
            }
        }
        catch (Exception e) when (e is CorruptionException or FormatVersionException or IOException or InvalidOperationException)
        {
            failures.Enqueue($"{where}: opening or checking the store after the kill failed: {e}");
        }
    }

    [GeneratedRegex("^ACK (r[0-9]{5}/[a-z0-9]+/[0-9]{7}) ([0-9A-F]{16})$")]
    private static partial Regex AckLine();
}
