namespace Voron.Tests.Documents.Changes;

/// <summary>A clock tests move by hand; its timers never fire (the store's background loops wait forever on it).</summary>
internal sealed class ManualTimeProvider : TimeProvider
{
    private long _utcTicks = DateTime.UtcNow.Ticks;

    public override DateTimeOffset GetUtcNow() => new(Interlocked.Read(ref _utcTicks), TimeSpan.Zero);

    public void Advance(TimeSpan by) => Interlocked.Add(ref _utcTicks, by.Ticks);

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period) => new NeverTimer();

    private sealed class NeverTimer : ITimer
    {
        public bool Change(TimeSpan dueTime, TimeSpan period) => true;

        public void Dispose()
        {
        }

        public ValueTask DisposeAsync() => ValueTask.CompletedTask;
    }
}
