using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Tests;

/// <summary>
/// A tiny run of the <c>backup</c> experiment (a store of a few MiB, 1 s windows, one round): every
/// table, row and fact there, with figures in range. No speed is asserted. It calls BackupAsync,
/// RestoreAsync and the journal archive, so it fails when any of them does.
/// </summary>
public sealed class BackupExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Backup_is_part_of_the_ops_suite_with_its_options()
    {
        SuiteParts.Part<BackupExperiment>(ExperimentCatalog.Find("ops"));
        var parsed = CommandLine.Parse(["ops", "--parts", "backup", "--size", "128", "--seconds", "2", "--rounds", "4", "--archive", "16"]);
        Assert.Empty(parsed.Errors);
        Assert.Equal(128, parsed.GetValue(ExperimentCatalog.BackupSize));
        Assert.Equal(2, parsed.GetValue(ExperimentCatalog.BackupSeconds));
        Assert.Equal(4, parsed.GetValue(ExperimentCatalog.OpsRounds));
        Assert.Equal(16, parsed.GetValue(ExperimentCatalog.BackupArchive));
    }

    [Fact]
    public async Task Backup_reports_throughput_against_cp_writers_with_and_without_backups_and_restores()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new BackupExperiment(dataFileBytes: 4L << 20, window: TimeSpan.FromSeconds(1), rounds: 1,
            archiveBytes: 2L << 20, journalFileSize: 1L << 20, writers: 4).RunAsync(context);

        var throughput = Table(report, BackupExperiment.ThroughputTable);
        var methods = PlainCopy.Available
            ? new[] { BackupExperiment.Cp, BackupExperiment.BackupVerified, BackupExperiment.BackupUnverified }
            : [BackupExperiment.BackupVerified, BackupExperiment.BackupUnverified];
        Assert.Equal(methods, throughput.Select(r => (string)r["method"]!));
        Assert.All(throughput, r => Assert.True((double)r["MBps"]! > 0));
        Assert.All(throughput.Where(r => (string)r["method"]! != BackupExperiment.Cp), r =>
        {
            Assert.True((double)r["maxWriterPauseMs"]! >= 0);
            Assert.Equal(0.5, r["target"]);
            Assert.Equal(PlainCopy.Available, r["met"] != null);
        });
        Assert.Equal(methods.Length, Table(report, BackupExperiment.CopiesTable).Count);

        var writers = Table(report, BackupExperiment.WritersSummaryTable);
        Assert.Equal([BackupExperiment.NoBackup, BackupExperiment.BackupsRunning], writers.Select(r => (string)r["backups"]!));
        Assert.All(writers, r => Assert.True((double)r["p99Ms"]! > 0 && (double)r["okRps"]! > 0));
        Assert.True((int)writers[1]["backupsCompleted"]! >= 1);
        Assert.Equal(1.0, (double)writers[0]["p99Ratio"]!, 6);
        Assert.IsType<bool>(writers[1]["met"]);
        Assert.Equal(2, Table(report, BackupExperiment.WritersTable).Count);

        var restores = Table(report, BackupExperiment.RestoreTable);
        Assert.Equal([BackupExperiment.ToLastArchived, BackupExperiment.ToMiddleTime], restores.Select(r => (string)r["to"]!));
        var (last, middle) = (restores[0], restores[1]);
        Assert.True((long)last["transactionsReplayed"]! > 0);
        Assert.True((double)last["journalMiB"]! >= 1, "at least one archived journal file replayed");
        Assert.InRange((long)middle["transactionsReplayed"]!, 1, (long)last["transactionsReplayed"]! - 1);
        Assert.Equal((long)middle["expectedTransactionId"]!, (long)middle["transactionId"]!);

        var facts = report.Facts.ToDictionary(f => f.Key, f => f.Value);
        foreach (var fact in new[] { "fdatasyncMedianMs", "voronDurability", "cpDurability", "backupDurability", "dataFileMiB", "liveMiB", "archivedMiB" })
        {
            Assert.True(facts.ContainsKey(fact), fact);
        }

        Assert.True((double)facts["dataFileMiB"]! >= 4);
        Assert.True((double)facts["archivedMiB"]! >= 2);
        Assert.Contains(report.Notes, n => n.Contains("at least 0.5x cp", StringComparison.Ordinal));
        Assert.Contains(report.Notes, n => n.Contains("at most 2x", StringComparison.Ordinal));
    }

    [Fact]
    public void Plain_copy_copies_the_data_file_and_headers_with_their_bytes_and_not_the_journal_when_cp_and_sync_are_there()
    {
        // The experiment's baseline needs cp and sync; without them it reports the baseline skipped
        // (the test above checks that), and only the lookup can be checked here.
        if (!PlainCopy.Available)
        {
            Assert.Null(PlainCopy.Find("no-such-tool-" + Guid.NewGuid().ToString("N")));
            return;
        }

        var source = _directory.Combine("source");
        Directory.CreateDirectory(Path.Combine(source, "journal"));
        File.WriteAllBytes(Path.Combine(source, "voron.data"), [.. Enumerable.Range(0, 100_000).Select(i => (byte)i)]);
        File.WriteAllText(Path.Combine(source, "journal", "0001.journal"), "journal");
        File.WriteAllText(Path.Combine(source, "headers.one"), "one");
        File.WriteAllText(Path.Combine(source, "headers.two"), "two");
        var destination = _directory.Combine("copy");

        PlainCopy.CopyAndSync(source, destination);

        Assert.Equal(File.ReadAllBytes(Path.Combine(source, "voron.data")), File.ReadAllBytes(Path.Combine(destination, "voron.data")));
        Assert.Equal("one", File.ReadAllText(Path.Combine(destination, "headers.one")));
        Assert.Equal("two", File.ReadAllText(Path.Combine(destination, "headers.two")));
        Assert.False(Directory.Exists(Path.Combine(destination, "journal")), "a backup carries no journal, so neither does the baseline");
    }

    private static List<Dictionary<string, object?>> Table(Report report, string table) =>
        [.. report.Rows.Where(r => (string?)r["table"] == table)];

    public void Dispose() => _directory.Dispose();
}
