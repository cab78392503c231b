namespace Voron.Tests.Core.Crash;

/// <summary>
/// CT5. the header write — the commit point of a flush — torn at every byte: its first n bytes
/// new and the rest old, and the reverse, for every n from 0 to 512, for the write that creates
/// the second header copy and for a later one that overwrites the older copy. Sector atomicity is
/// not assumed: the store must always open at a state the oracle accepts (a torn copy fails its
/// checksum and the other copy, with the journal it names, still holds everything).
/// </summary>
public sealed class TornHeaderTests(ITestOutputHelper output)
{
    private static readonly CrashScenario Flushes = new("three flushes", run =>
    {
        run.Open();
        for (var round = 0; round < 3; round++)
        {
            run.Commit(Change.Put("t", $"k{round}", CrashScenarios.Bytes(round, 3000)), Change.Put("u", $"k{round}", CrashScenarios.Bytes(round + 10, 50)));
            run.Commit(Change.Put("t", $"j{round}", CrashScenarios.Bytes(round + 20, 500)));
            run.Flush();
        }

        run.Commit(Change.Put("t", "after", CrashScenarios.Bytes(99, 10)));
    }, o => o.JournalFileSize = 8 * 1024);

    [Fact]
    public void Header_write_torn_at_every_byte_always_recovers()
    {
        var seed = TestSeed.Next(output, nameof(TornHeaderTests));
        using var dryRun = CrashHarness.RunToCrash(Flushes, seed, crashAt: null, out _);
        var headerWrites = dryRun.Calls.Where(c => c.Kind == IoCallKind.Write && c.Path.Contains("/headers.", StringComparison.Ordinal)).ToList();
        var cases = headerWrites.Skip(1) // the first creates the store: CrashRegressionTests covers it
            .SelectMany(write => Enumerable.Range(0, 513).SelectMany(split => new[] { (write, split, NewFirst: true), (write, split, NewFirst: false) }))
            .ToList();
        var (states, failures) = StateRunner.Run(cases, (item, found) =>
        {
            var (write, split, newFirst) = item;
            using var machine = CrashHarness.RunToCrash(Flushes, seed, write.Index + 1, out var model); // the FlushData after the write never returned
            using var kept = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.KeepAll, seed));
            using var dropped = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, seed));
            var images = kept.DurableContents();
            var newBytes = images[write.Path];
            var oldBytes = dropped.DurableContents().GetValueOrDefault(write.Path) ?? [];
            var torn = new byte[Math.Max(newBytes.Length, 512)];
            for (var i = 0; i < torn.Length; i++)
            {
                var fromNew = newFirst ? i < split : i >= split;
                torn[i] = fromNew ? At(newBytes, i) : At(oldBytes, i);
            }

            var files = images.Select(f => (f.Key, new FileImage(f.Key == write.Path ? torn : f.Value, f.Key == write.Path ? torn.Length : f.Value.Length)));
            using var crashed = CrashFileSystem.FromImages(seed, ["/store", "/store/journal"], files);
            try
            {
                CrashVerifier.Verify(crashed, model, Flushes.Tune, reopen: false);
            }
            catch (CrashCheckException e)
            {
                found.Add($"{write} torn at byte {split} ({(newFirst ? "new bytes first" : "old bytes first")}), seed {seed}: {e.Message}");
            }

            return 1;
        });

        CrashBudget.Report(output, $"{headerWrites.Count - 1} header writes torn at every byte both ways", states, failures);
    }

    private static byte At(byte[] bytes, int index) => index < bytes.Length ? bytes[index] : (byte)0;
}
