using System.Diagnostics;
using System.Text.RegularExpressions;
using Voron.Archive;
using Voron.Testing.Processes;
using Voron.Tests.ObjectStorage;

namespace Voron.Tests.Core.Crash;

/// <summary>
/// A store that ships its journal (SH1..SH6, TR1..TR5), killed with SIGKILL at random moments: the
/// child (<c>Voron.Testing.Processes ship-child</c>, ShipCrashChild.cs) commits, leaves and
/// releases journal files every few commits, archives and uploads them, and is killed — while it
/// opens, commits, rotates, flushes, copies or uploads. After each kill: the store reopens
/// (recovery) with every acknowledged commit; the destination's journal objects are an unbroken
/// chain (AO1, SH2) continued without a gap by the local archive and journal files; a restore from
/// the destination holds every acknowledged commit up to the transaction it reaches; and shipping
/// resumes and catches up with the store. A few kills by default, more under VORON_SOAK.
/// </summary>
public sealed partial class ShippingKillTests(ITestOutputHelper output)
{
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);

    private static int Kills => CrashBudget.Count(6, 1.0 / 20_000);

    [Fact]
    public async Task Kill_9_while_shipping_to_a_directory_loses_nothing_acknowledged_and_shipping_catches_up()
    {
        using var temp = new TempDirectory();
        var remote = temp.Combine("remote");
        await KillLoopAsync(temp, new DirectoryArchiveDestination(remote), ["dir", remote], Kills);
    }

    [ObjectServerFact("s3rver")]
    public async Task Kill_9_while_shipping_to_s3rver_loses_nothing_acknowledged_and_shipping_catches_up()
    {
        using var server = ObjectServer.StartS3rver();
        using var temp = new TempDirectory();
        const string prefix = "kill";
        using var destination = Voron.ObjectStorage.S3ArchiveDestination.ForEndpoint(server.Endpoint, ObjectServer.Bucket, "S3RVER", "S3RVER", prefix);
        await KillLoopAsync(temp, destination, ["s3", server.Endpoint.ToString(), ObjectServer.Bucket, prefix], Math.Max(4, Kills / 2));
    }

    private async Task KillLoopAsync(TempDirectory temp, IArchiveDestination destination, string[] where, int kills)
    {
        var seed = TestSeed.Next(output, nameof(ShippingKillTests));
        var (store, archive) = (temp.Combine("store"), temp.Combine("archive"));
        var lineage = await CreateWithSnapshotAsync(store, archive, destination, temp.Combine("backup"));
        var acknowledged = new Dictionary<string, (string Hash, long Tx)>(StringComparer.Ordinal);
        var failures = new List<string>();
        var beforeReady = 0;
        long restoredTo = 0;
        for (var run = 0; run < kills && failures.Count == 0; run++)
        {
            var random = new Random(CrashHarness.StateSeed(seed, "ship-kill", 0, run));
            var at = $"run {run} (seed {seed})";
            var lines = RunAndKill(store, archive, seed, run, where, random, at, failures, ref beforeReady, last: run == kills - 1);
            foreach (var line in lines)
            {
                if (AckLine().Match(line) is { Success: true } ack)
                {
                    acknowledged[ack.Groups[1].Value] = (ack.Groups[2].Value, long.Parse(ack.Groups[3].Value, CultureInfo.InvariantCulture));
                }
            }

            restoredTo = await VerifyAsync(store, archive, destination, lineage, acknowledged, temp.Combine($"restored-{run}"), seed, run, at, failures);
        }

        output.WriteLine($"{kills} children killed with SIGKILL ({beforeReady} before the store was open), {acknowledged.Count} acknowledged commits, " +
                         $"the last restore from {destination.Description} reached transaction {restoredTo}, seed {seed}");
        foreach (var failure in failures.Take(20))
        {
            output.WriteLine(failure);
        }

        Assert.True(failures.Count == 0, $"{failures.Count} failures; first: {failures.FirstOrDefault()}");
        Assert.True(acknowledged.Count > 0, "no child acknowledged a commit");
    }

    /// <summary>A new store with one commit, its backup uploaded as the lineage's snapshot (a restore's base).</summary>
    private static async Task<string> CreateWithSnapshotAsync(string store, string archive, IArchiveDestination destination, string backup)
    {
        var options = ShipCrashChild.Options(store, archive, destination, 0, 0);
        options.ShipArchiveInBackground = false;
        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("ship").Put("base"u8, "0"u8);
            tx.Commit();
        }

        var result = await env.BackupAsync(backup);
        await ObjectArchive.UploadSnapshotAsync(destination, result.Directory);
        return ArchiveKeys.Lineage(env.StoreId);
    }

    private static List<string> RunAndKill(string store, string archive, int seed, int run, string[] where, Random random, string at, List<string> failures,
        ref int beforeReady, bool last)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in (string[])[Path.Combine(AppContext.BaseDirectory, "Voron.Testing.Processes.dll"), ShipCrashChild.Command, store, archive,
                     seed.ToString(CultureInfo.InvariantCulture), run.ToString(CultureInfo.InvariantCulture), .. where])
        {
            start.ArgumentList.Add(argument);
        }

        using var child = Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start");
        var lines = new List<string>();
        using var ready = new ManualResetEventSlim();
        var reader = new Thread(() =>
        {
            while (child.StandardOutput.ReadLine() is { } line)
            {
                lock (lines)
                {
                    lines.Add(line);
                }

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
            var early = random.Next(5) == 0;
            var brief = random.Next(3) == 0;
            if (early && !last) // the last child always commits a while, so every run checks acknowledged commits
            {
                Thread.Sleep(random.Next(300)); // maybe still opening, recovering or catching up
                beforeReady += ready.IsSet ? 0 : 1;
            }
            else if (ready.Wait(ReadyTimeout))
            {
                Thread.Sleep(brief && !last ? random.Next(10) : random.Next(300, 2500));
            }
            else
            {
                failures.Add($"{at}: the child did not open the store within {ReadyTimeout.TotalSeconds} s");
            }

            if (child.HasExited)
            {
                failures.Add($"{at}: the child exited by itself with code {child.ExitCode}: {errors.Result}");
            }

            child.Kill(); // SIGKILL
            child.WaitForExit();
            reader.Join();
        }
        finally
        {
            if (!child.HasExited)
            {
                child.Kill();
            }
        }

        return lines;
    }

    /// <summary>The checks after one kill (see the class summary); returns the transaction the restore from the destination reached.</summary>
    private static async Task<long> VerifyAsync(string store, string archive, IArchiveDestination destination, string lineage,
        Dictionary<string, (string Hash, long Tx)> acknowledged, string restoreDirectory, int seed, int run, string at, List<string> failures)
    {
        var options = ShipCrashChild.Options(store, archive, destination, seed, run);
        options.ShipArchiveInBackground = false;
        options.ArchiveMaxDelay = TimeSpan.Zero; // the check's own release step leaves the current file at once
        using var env = StorageEnvironment.Open(options); // recovery
        using (var read = env.BeginRead())
        {
            var tree = read.OpenTree("ship");
            foreach (var (key, (hash, _)) in acknowledged)
            {
                var value = tree?.Get(Encoding.UTF8.GetBytes(key));
                if (value == null || CrashChild.Hash(value) != hash)
                {
                    failures.Add($"{at}: acknowledged key {key} is {(value == null ? "missing" : "there with another value")} after the kill");
                    return 0;
                }
            }
        }

        // The destination's objects before anything ships again: a chain, continued locally without a gap.
        var (shippedFile, shippedTx) = await AssertChainAsync(destination, lineage, archive, at, failures);
        var local = JournalFiles.List(StorageEnvironmentOptions.ForDirectory(archive).FileSystem, archive).Where(n => n > shippedFile)
            .Concat(JournalFiles.List(StorageEnvironmentOptions.ForDirectory(store).FileSystem, Path.Combine(store, "journal")))
            .Distinct().Order().ToList();
        if (local.Count == 0 || local[0] > shippedFile + 1 || local.Zip(local.Skip(1)).Any(pair => pair.Second != pair.First + 1))
        {
            failures.Add($"{at}: the destination holds journal files through {shippedFile}, and the local archive and journal hold {string.Join(", ", local)}: a gap");
        }

        // Shipping resumes where the killed child left it (SH7: an upload the kill tore is uploaded
        // again) and catches up with the store.
        env.ReleaseAgedJournalFile();
        var status = await env.ShipArchiveAsync();
        if (status.LastShippedTransaction != env.LastCommittedTransactionId || status.PendingFiles != 0)
        {
            failures.Add($"{at}: after the catch-up the destination holds transactions through {status.LastShippedTransaction} " +
                         $"({status.PendingFiles} files wait); the store is at {env.LastCommittedTransactionId}");
        }

        // A restore from the destination holds every acknowledged commit up to where it reaches.
        var restored = await ObjectArchive.RestoreAsync(destination, lineage, restoreDirectory, recordFork: false);
        if (restored.TransactionId < Math.Max(shippedTx, status.LastShippedTransaction))
        {
            failures.Add($"{at}: the restore reached transaction {restored.TransactionId}, but the destination's objects go to {shippedTx}");
        }

        var restoredOptions = StorageEnvironmentOptions.ForDirectory(restored.Directory);
        using (var copy = StorageEnvironment.Open(restoredOptions))
        using (var read = copy.BeginRead())
        {
            var tree = read.OpenTree("ship");
            foreach (var (key, (hash, tx)) in acknowledged.Where(a => a.Value.Tx <= restored.TransactionId))
            {
                var value = tree?.Get(Encoding.UTF8.GetBytes(key));
                if (value == null || CrashChild.Hash(value) != hash)
                {
                    failures.Add($"{at}: key {key} (transaction {tx}) is {(value == null ? "missing" : "different")} in the restore to transaction {restored.TransactionId}");
                    break;
                }
            }
        }

        Directory.Delete(restored.Directory, recursive: true);
        await AssertChainAsync(destination, lineage, archive, at, failures);
        return restored.TransactionId;
    }

    /// <summary>AO1, AO2, SH2: the lineage's journal objects are consecutive, each the archived file's bytes, each chained to the one before.</summary>
    private static async Task<(long File, long Tx)> AssertChainAsync(IArchiveDestination destination, string lineage, string archive, string at, List<string> failures)
    {
        var prefix = $"{lineage}/journal/";
        byte[]? after = null;
        long? previous = null;
        long lastTx = 0;
        string? torn = null;
        await foreach (var item in destination.ListAsync(prefix))
        {
            if (ArchiveKeys.ParseNumber(item.Key.AsSpan(prefix.Length)) is not { } number)
            {
                continue;
            }

            if (torn != null)
            {
                failures.Add($"{at}: '{torn}' is torn and is not the lineage's last object");
                break;
            }

            await using var stream = await destination.GetAsync(item.Key) ?? throw new IOException($"'{item.Key}' was listed and is gone");
            using var buffer = new MemoryStream();
            await stream.CopyToAsync(buffer);
            var bytes = buffer.ToArray();
            if (!Whole(bytes, item.Key))
            {
                torn = item.Key; // SH7: an upload the kill tore (s3rver keeps partial bodies); only the last object may be one
                continue;
            }

            var header = ArchiveObjectHeader.Decode(bytes, item.Key);
            var content = bytes[ArchiveObjectHeader.Size..];
            var hash = await ArchiveObjectHeader.HashAsync(header.Before, new MemoryStream(content), default);
            if ((previous != null && number != previous + 1) || header.Sequence != number ||
                !header.Before.AsSpan().SequenceEqual(after ?? ArchiveObjectHeader.NoHash) ||
                !header.After.AsSpan().SequenceEqual(hash) ||
                (File.Exists(JournalFiles.PathOf(archive, number)) && !content.AsSpan().SequenceEqual(File.ReadAllBytes(JournalFiles.PathOf(archive, number)))))
            {
                failures.Add($"{at}: '{item.Key}' does not continue the chain after file {previous} (or differs from the archived file)");
                break;
            }

            after = header.After;
            previous = number;
            lastTx = header.LastTx;
        }

        return (previous ?? 0, lastTx);
    }

    /// <summary>Whether the object's bytes are a valid header and all of its content (AO2), or an upload a kill tore.</summary>
    private static bool Whole(byte[] bytes, string key)
    {
        try
        {
            return bytes.Length >= ArchiveObjectHeader.Size && bytes.Length == ArchiveObjectHeader.Size + ArchiveObjectHeader.Decode(bytes, key).ContentLength;
        }
        catch (CorruptionException)
        {
            return false;
        }
    }

    [GeneratedRegex("^ACK (r[0-9]{5}/s/[0-9]{7}) ([0-9A-F]{16}) ([0-9]+)$")]
    private static partial Regex AckLine();
}
