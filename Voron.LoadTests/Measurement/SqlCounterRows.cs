using Voron.LoadTests.Capabilities.Orders;
using Voron.SqliteVfs;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// The SQL counters of one run of a <see cref="ISqlCounted"/> path, as a report row: per write
/// transaction, the wait for the write lock, its hold, the time from a release until the next
/// holder ran; commits per journal flush; reads that waited for a flush; statements re-run.
/// </summary>
internal sealed class SqlCounterRows
{
    private readonly ISqlCounted _path;
    private readonly VoronSqliteStatistics _before;
    private readonly long _journalWritesBefore;
    private readonly long _started = System.Diagnostics.Stopwatch.GetTimestamp();

    private SqlCounterRows(ISqlCounted path)
    {
        _path = path;
        _before = path.SqlStatistics();
        _journalWritesBefore = path.JournalWrites;
    }

    /// <summary>The counters of several databases added up, under the name <paramref name="label"/>.</summary>
    public static VoronSqliteStatistics Sum(string label, IEnumerable<VoronSqliteStatistics> databases) =>
        databases.Aggregate(new VoronSqliteStatistics { Database = label }, (total, d) => new VoronSqliteStatistics
        {
            Database = label,
            WriteTransactions = total.WriteTransactions + d.WriteTransactions,
            CommitCaptureTime = total.CommitCaptureTime + d.CommitCaptureTime,
            CommitDurableWaitTime = total.CommitDurableWaitTime + d.CommitDurableWaitTime,
            WriteLockAcquisitions = total.WriteLockAcquisitions + d.WriteLockAcquisitions,
            WriteLockRefusals = total.WriteLockRefusals + d.WriteLockRefusals,
            WriteLockWaitTime = total.WriteLockWaitTime + d.WriteLockWaitTime,
            WriteLockHeldTime = total.WriteLockHeldTime + d.WriteLockHeldTime,
            WriteLockHandOffs = total.WriteLockHandOffs + d.WriteLockHandOffs,
            WriteLockHandOffTime = total.WriteLockHandOffTime + d.WriteLockHandOffTime,
            WriteLockStarvedHandOffs = total.WriteLockStarvedHandOffs + d.WriteLockStarvedHandOffs,
            SnapshotAdvances = total.SnapshotAdvances + d.SnapshotAdvances,
            StatementReruns = total.StatementReruns + d.StatementReruns,
            ReadsWaitedForFlush = total.ReadsWaitedForFlush + d.ReadsWaitedForFlush,
            ReadFlushWaitTime = total.ReadFlushWaitTime + d.ReadFlushWaitTime,
        });

    /// <summary>Starts counting a run of <paramref name="path"/>; null for a path without SQL on Voron.</summary>
    public static SqlCounterRows? Start(object path) => path is ISqlCounted counted and not Capabilities.Sql.ISqlEngine { HasJournal: false } ? new SqlCounterRows(counted) : null;

    /// <summary>Adds the run's counters to <paramref name="report"/> as the fact <paramref name="key"/>, in words (reports of one table of results).</summary>
    public void AddFactTo(Report report, string key)
    {
        var seconds = System.Diagnostics.Stopwatch.GetElapsedTime(_started).TotalSeconds;
        var run = _path.SqlStatistics().Since(_before);
        var flushes = _path.JournalWrites - _journalWritesBefore;
        static string Ms(TimeSpan total, long count) => count > 0 ? (total.TotalMilliseconds / count).ToString("0.###", CultureInfo.InvariantCulture) + " ms" : "-";
        report.AddFact(key, string.Create(CultureInfo.InvariantCulture,
            $"{run.WriteTransactions} commits ({run.WriteTransactions / Math.Max(seconds, 1e-9):0}/s, {(flushes > 0 ? ((double)run.WriteTransactions / flushes).ToString("0.##", CultureInfo.InvariantCulture) : "-")} per journal flush); " +
            $"write lock: {run.WriteLockAcquisitions} turns, wait {Ms(run.WriteLockWaitTime, run.WriteLockAcquisitions)}, hold {Ms(run.WriteLockHeldTime, run.WriteLockAcquisitions)}, " +
            $"{run.WriteLockHandOffs} hand-offs of {Ms(run.WriteLockHandOffTime, run.WriteLockHandOffs)}, {run.WriteLockStarvedHandOffs} starved, {run.WriteLockRefusals} refusals; " +
            $"per commit: capture {Ms(run.CommitCaptureTime, run.WriteTransactions)}, durable wait {Ms(run.CommitDurableWaitTime, run.WriteTransactions)}; " +
            $"reads waited for a flush {run.ReadsWaitedForFlush}, re-runs {run.StatementReruns}, snapshot advances {run.SnapshotAdvances}"));
    }

    /// <summary>Adds the run's row to <paramref name="report"/>'s table "sql counters".</summary>
    public void AddTo(Report report, string path, string load, int round)
    {
        var seconds = System.Diagnostics.Stopwatch.GetElapsedTime(_started).TotalSeconds; // warm-up and run: the counters span both
        var run = _path.SqlStatistics().Since(_before);
        var flushes = _path.JournalWrites - _journalWritesBefore;
        double? PerCommitMs(TimeSpan total, long count) => count > 0 ? total.TotalMilliseconds / count : null;
        report.AddRow(
            ("table", "sql counters"),
            ("path", path),
            ("load", load),
            ("round", round),
            ("commits/s", run.WriteTransactions / Math.Max(seconds, 1e-9)),
            ("commits per flush", flushes > 0 ? (double)run.WriteTransactions / flushes : null),
            ("lock wait ms", PerCommitMs(run.WriteLockWaitTime, run.WriteLockAcquisitions)),
            ("lock hold ms", PerCommitMs(run.WriteLockHeldTime, run.WriteLockAcquisitions)),
            ("hand-offs", run.WriteLockHandOffs),
            ("hand-off ms", PerCommitMs(run.WriteLockHandOffTime, run.WriteLockHandOffs)),
            ("starved hand-offs", run.WriteLockStarvedHandOffs),
            ("lock refusals", run.WriteLockRefusals),
            ("capture ms", PerCommitMs(run.CommitCaptureTime, run.WriteTransactions)),
            ("durable wait ms", PerCommitMs(run.CommitDurableWaitTime, run.WriteTransactions)),
            ("reads waited", run.ReadsWaitedForFlush),
            ("read wait ms", PerCommitMs(run.ReadFlushWaitTime, run.ReadsWaitedForFlush)),
            ("re-runs", run.StatementReruns),
            ("advances", run.SnapshotAdvances));
    }
}
