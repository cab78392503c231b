namespace Voron.Tests.Documents.Expiration;

/// <summary>A clock tests move by hand: "now" is what they set; timers and delays stay the system's.</summary>
internal sealed class ManualClock(DateTimeOffset start) : TimeProvider
{
    private long _ticks = start.UtcTicks;

    public DateTimeOffset Now => new(Interlocked.Read(ref _ticks), TimeSpan.Zero);

    public override DateTimeOffset GetUtcNow() => Now;

    public void Advance(TimeSpan by) => Interlocked.Add(ref _ticks, by.Ticks);
}
