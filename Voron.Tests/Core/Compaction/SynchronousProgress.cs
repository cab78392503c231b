namespace Voron.Tests.Core.Compaction;

/// <summary>An IProgress that reports on the caller's thread, at once (Progress&lt;T&gt; posts to the thread pool).</summary>
internal sealed class SynchronousProgress(Action<BackupProgress> report) : IProgress<BackupProgress>
{
    public void Report(BackupProgress value) => report(value);
}
