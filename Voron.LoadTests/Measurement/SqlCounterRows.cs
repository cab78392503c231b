using Voron.LoadTests.Engines.Orders;
using Voron.LoadTests.Reporting;
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

    /// <summary>Starts counting a run of <paramref name="path"/>; null for a path without SQL on Voron.</summary>
    public static SqlCounterRows? Start(object path) => path is ISqlCounted counted ? new SqlCounterRows(counted) : null;

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
