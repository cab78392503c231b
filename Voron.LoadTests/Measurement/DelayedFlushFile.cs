using Voron.Platform;

namespace Voron.LoadTests.Measurement;

/// <summary>One file of a <see cref="DelayedFlushFileSystem"/>: <see cref="FlushData"/> waits the simulated delay after the real flush.</summary>
internal sealed class DelayedFlushFile(DelayedFlushFileSystem owner, IStorageFile inner) : DelegatingStorageFile(inner)
{
    public override void FlushData()
    {
        Inner.FlushData();
        owner.Delay();
    }
}
