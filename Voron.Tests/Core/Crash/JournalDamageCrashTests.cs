using Voron.Header;

namespace Voron.Tests.Core.Crash;

/// <summary>
/// The classes "damage to the last record (torn vs rotted, told apart)" and "lazy-mode bit flips".
/// Every scenario, durable and lazy, is crashed at sampled points (every damage model); the disk
/// left behind is then damaged once more in one journal record that recovery would replay:
/// <list type="bullet">
/// <item>rot — one flipped bit in any sector of the record, the last one or an older one, in
///   either durability mode: recovery must report CorruptionException naming the record's file
///   and offset (JournalTailRecovery.DiscardTornWrite and Strict), and leave the journal as it
///   was (the evidence is kept). Under DiscardAnyDamage the store opens exactly at the
///   transaction before the record — unless a later record proves the record durable, which is
///   corruption there too;</item>
/// <item>a tear — sectors of the last record reading as zeros, as if the disk had never written
///   them: the record is discarded and the store opens exactly at the transaction before it,
///   unless a later record proves it durable (then CorruptionException); under Strict, always
///   CorruptionException.</item>
/// </list>
/// </summary>
public sealed class JournalDamageCrashTests(ITestOutputHelper output)
{
    private const string JournalDirectory = CrashRun.Directory + "/journal";

    public static TheoryData<string> Scenarios => [.. AllScenarios().Select(s => s.Name)];

    private static IEnumerable<CrashScenario> AllScenarios() =>
        CrashScenarios.Enumerated.Concat(CrashScenarios.Enumerated.Select(s => s.InLazyMode(TimeSpan.FromHours(1))));

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void Rot_in_a_replayed_record_is_reported_and_a_torn_last_record_is_discarded(string name)
    {
        var scenario = AllScenarios().Single(s => s.Name == name);
        var seed = TestSeed.Next(output, $"{nameof(JournalDamageCrashTests)} '{name}'");
        var calls = CrashHarness.CountCalls(scenario, seed);
        var every = CrashBudget.Soak is null ? 4 : 1;
        var rounds = CrashBudget.Soak is null ? 1 : Math.Max(1, CrashBudget.DamageRounds / 10);
        var points = Enumerable.Range(0, calls + 1).Where(p => p % every == 0).ToList();
        var outcomes = new System.Collections.Concurrent.ConcurrentDictionary<string, int>();
        var (states, failures) = StateRunner.Run(points, (point, found) =>
        {
            using var machine = CrashHarness.RunToCrash(scenario, seed, point, out var model);
            var checkedStates = 0;
            for (var round = 0; round < rounds; round++)
            {
                var stateSeed = CrashHarness.StateSeed(seed, scenario.Name, point, round);
                var policy = PowerLossPolicy.Random(stateSeed);
                using var crashed = machine.AfterPowerLoss(policy);
                var where = $"{scenario} crash point {point} ({machine.CrashCall?.ToString() ?? "after the last call"}), {policy}, seed {seed}";
                var records = Replayed(crashed, scenario);
                if (records.Count == 0)
                {
                    outcomes.AddOrUpdate("nothing to replay", 1, (_, n) => n + 1);
                    continue;
                }

                var random = new Random(stateSeed);
                var victim = random.Next(2) == 0 ? records[^1] : records[random.Next(records.Count)];
                checkedStates += CheckRot(crashed, scenario, model, records, victim, Flushed(machine, victim), random, where, outcomes, found);
                checkedStates += CheckTear(crashed, scenario, model, records, records[^1], Flushed(machine, records[^1]), random, where, outcomes, found);
            }

            return checkedStates;
        });

        output.WriteLine(string.Join(", ", outcomes.OrderBy(o => o.Key).Select(o => $"{o.Value} {o.Key}")));
        CrashBudget.Report(output, $"'{name}': {points.Count} crash points x {rounds} power losses, rot and tears", states, failures);
    }

    private static int CheckRot(CrashFileSystem crashed, CrashScenario scenario, StoreModel model, List<Record> records, Record victim, bool flushed,
        Random random, string where, System.Collections.Concurrent.ConcurrentDictionary<string, int> outcomes, List<string> found)
    {
        var bit = random.NextInt64(victim.Length * 8);
        var proven = ProvenDurable(crashed, records, victim);
        foreach (var mode in Enum.GetValues<JournalTailRecovery>())
        {
            using var disk = crashed.Copy(0);
            Edit(disk, victim, bytes => bytes[bit / 8] ^= (byte)(1 << (int)(bit % 8)));
            var what = $"{where}: bit {bit} of record tx {victim.TransactionId} (of {records[^1].TransactionId}) flipped, {mode}";
            if (mode == JournalTailRecovery.DiscardAnyDamage && !proven)
            {
                if (flushed)
                {
                    // The flush had begun copying the record's pages into the data file: dropping it
                    // now cannot give a consistent store, and nothing on disk says so. That is the
                    // price of DiscardAnyDamage (docs/durability.md); nothing to check.
                    outcomes.AddOrUpdate("rot in a flushed record, DiscardAnyDamage: not checked", 1, (_, n) => n + 1);
                    continue;
                }

                ExpectOpensAt(disk, scenario, model, victim.TransactionId - 1, mode, what, found);
                outcomes.AddOrUpdate("rot discarded (DiscardAnyDamage)", 1, (_, n) => n + 1);
                continue;
            }

            ExpectCorruption(disk, scenario, victim, mode, what, found);
            outcomes.AddOrUpdate(victim == records[^1] ? "rot in the last record reported" : "rot in an older record reported", 1, (_, n) => n + 1);
        }

        return 3;
    }

    private static int CheckTear(CrashFileSystem crashed, CrashScenario scenario, StoreModel model, List<Record> records, Record last, bool flushed,
        Random random, string where, System.Collections.Concurrent.ConcurrentDictionary<string, int> outcomes, List<string> found)
    {
        var sectors = (int)(last.Length / JournalRecord.SectorSize);
        var lost = Enumerable.Range(1, sectors - 1).Where(_ => random.Next(3) == 0).ToList();
        if (lost.Count == 0)
        {
            lost.Add(random.Next(1, sectors));
        }

        // A crash tears only a record whose write it interrupted, before any flush copied it to the
        // data file (FL0); zeros in a record a flush had begun to copy would be a lost write, which
        // only a later record's DurableThrough can reveal — the default checks just that case.
        var proven = ProvenDurable(crashed, records, last);
        foreach (var mode in flushed && !proven ? [JournalTailRecovery.Strict] : new[] { JournalTailRecovery.DiscardTornWrite, JournalTailRecovery.Strict })
        {
            using var disk = crashed.Copy(0);
            Edit(disk, last, bytes =>
            {
                foreach (var sector in lost)
                {
                    bytes.AsSpan(sector * JournalRecord.SectorSize, JournalRecord.SectorSize).Clear();
                }
            });
            var what = $"{where}: sectors [{string.Join(", ", lost)}] of the last record tx {last.TransactionId} read as zeros, {mode}";
            if (mode == JournalTailRecovery.Strict || proven)
            {
                ExpectCorruption(disk, scenario, last, mode, what, found);
                outcomes.AddOrUpdate(proven ? "tear of a record proven durable reported" : "tear reported (Strict)", 1, (_, n) => n + 1);
            }
            else
            {
                ExpectOpensAt(disk, scenario, model, last.TransactionId - 1, mode, what, found);
                outcomes.AddOrUpdate("tear discarded", 1, (_, n) => n + 1);
            }
        }

        return 2;
    }

    private static void ExpectCorruption(CrashFileSystem disk, CrashScenario scenario, Record victim, JournalTailRecovery mode, string what, List<string> found)
    {
        var before = Read(disk, victim);
        try
        {
            StorageEnvironment.Open(Options(disk, scenario, mode)).Dispose();
            found.Add($"{what}: the store opened; expected CorruptionException");
        }
        catch (CorruptionException e)
        {
            if (e.File != victim.Path || e.Offset != victim.Start.Offset)
            {
                found.Add($"{what}: CorruptionException names {e.File} at {e.Offset}, not the record at {victim.Start.Offset}: {e.Message}");
            }
        }
        catch (Exception e)
        {
            found.Add($"{what}: {e.GetType().Name} instead of CorruptionException: {e.Message}");
        }

        if (!Read(disk, victim).AsSpan().SequenceEqual(before))
        {
            found.Add($"{what}: the failed open changed the damaged record (the evidence must be kept)");
        }
    }

    private static void ExpectOpensAt(CrashFileSystem disk, CrashScenario scenario, StoreModel model, long transactionId, JournalTailRecovery mode, string what,
        List<string> found)
    {
        try
        {
            using var environment = StorageEnvironment.Open(Options(disk, scenario, mode));
            if (environment.LastCommittedTransactionId != transactionId)
            {
                found.Add($"{what}: opened at transaction {environment.LastCommittedTransactionId}, expected {transactionId}");
                return;
            }

            CrashVerifier.CheckContents(environment, model.StatesAt(transactionId), transactionId, "after the damaged record was discarded");
            environment.CheckIntegrity();
        }
        catch (Exception e)
        {
            found.Add($"{what}: {e.GetType().Name}: {e.Message}");
        }
    }

    /// <summary>Whether the data file was written after <paramref name="record"/> was (a flush began copying it: FL0 says it was durable by then).</summary>
    private static bool Flushed(CrashFileSystem machine, Record record)
    {
        var calls = machine.Calls;
        var written = -1;
        for (var i = calls.Count - 1; i >= 0 && written < 0; i--)
        {
            var call = calls[i];
            if (call.Kind == IoCallKind.Write && call.Path == record.Path && call.Offset == record.Start.Offset && call.Length == record.Length)
            {
                written = i;
            }
        }

        return calls.Skip(written + 1).Any(c => c.Kind == IoCallKind.Write && c.Path.EndsWith("/voron.data", StringComparison.Ordinal));
    }

    private static StorageEnvironmentOptions Options(CrashFileSystem disk, CrashScenario scenario, JournalTailRecovery mode) =>
        CrashRun.Options(disk, o =>
        {
            scenario.Tune?.Invoke(o);
            o.JournalTailRecovery = mode;
        });

    /// <summary>The records recovery would replay on <paramref name="disk"/> (read on a copy), in order.</summary>
    private static List<Record> Replayed(CrashFileSystem disk, CrashScenario scenario)
    {
        using var copy = disk.Copy(0);
        var layout = new StoreLayout(CrashRun.Directory);
        if (!copy.FileExists(layout.HeaderFile(1)) || HeaderFile.ReadNewest(copy, layout) is not { } header)
        {
            return [];
        }

        var records = new List<Record>();
        try
        {
            JournalReader.Recover(copy, JournalDirectory, header.StoreId, new JournalPosition(header.JournalFile, header.JournalOffset), header.LastSyncedTxId + 1,
                r => records.Add(new Record(r.TransactionId, r.Start, r.End.Offset - r.Start.Offset, header.StoreId)));
        }
        catch (CorruptionException e)
        {
            throw new CrashCheckException($"{scenario}: the crashed disk does not recover: {e.Message}", e);
        }

        return records;
    }

    /// <summary>Whether an intact record after <paramref name="victim"/> (replayed or not) says the victim was durable (DurableThrough, J11).</summary>
    private static bool ProvenDurable(CrashFileSystem disk, List<Record> records, Record victim)
    {
        foreach (var path in disk.ListFiles(JournalDirectory, "*.journal"))
        {
            var number = long.Parse(Path.GetFileNameWithoutExtension(path), System.Globalization.CultureInfo.InvariantCulture);
            if (number < victim.Start.FileNumber)
            {
                continue;
            }

            using var file = disk.Open(path, FileOpenMode.OpenExisting);
            var header = new byte[JournalRecord.HeaderSize];
            for (var offset = number == victim.Start.FileNumber ? victim.Start.Offset + victim.Length : 0; offset + JournalRecord.SectorSize <= file.Length; offset += JournalRecord.Alignment)
            {
                file.Read(offset, header);
                if (JournalRecordHeader.TryRead(header, new RecordBinding(victim.StoreId, number), out var parsed) &&
                    parsed.DurableThrough >= victim.TransactionId && parsed.TransactionId > parsed.DurableThrough)
                {
                    return true;
                }
            }
        }

        return false;
    }

    private static void Edit(CrashFileSystem disk, Record record, Action<byte[]> edit)
    {
        var bytes = Read(disk, record);
        edit(bytes);
        using var file = disk.Open(record.Path, FileOpenMode.OpenExisting);
        file.Write(record.Start.Offset, bytes);
    }

    private static byte[] Read(CrashFileSystem disk, Record record)
    {
        using var file = disk.Open(record.Path, FileOpenMode.OpenExisting);
        var bytes = new byte[record.Length];
        file.Read(record.Start.Offset, bytes);
        return bytes;
    }

    private sealed record Record(long TransactionId, JournalPosition Start, long Length, ulong StoreId)
    {
        public string Path => JournalFiles.PathOf(JournalDirectory, Start.FileNumber);
    }
}
