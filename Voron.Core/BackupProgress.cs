namespace Voron;

/// <summary>How far a backup, restore or compaction is.</summary>
/// <param name="Phase">What it is doing: <c>copy</c>, <c>verify</c>, <c>replay</c>, <c>swap</c>.</param>
/// <param name="Done">Units of the phase done: pages for copy and verify, bytes of journal for replay.</param>
/// <param name="Total">Units of the phase in all (0 when not known).</param>
/// <param name="BytesWritten">Bytes written to the destination so far.</param>
/// <param name="Elapsed">Time since the operation started.</param>
public sealed record BackupProgress(string Phase, long Done, long Total, long BytesWritten, TimeSpan Elapsed);
