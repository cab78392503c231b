namespace Voron.Testing.Crash;

/// <summary>
/// Thrown by the crash simulator from the call at the crash point and from every mutating call
/// after it: the machine has lost power, nothing more reaches the disk. An
/// <see cref="IOException"/>, so the engine treats it as the I/O failure it would see if it
/// lived to see one.
/// </summary>
internal sealed class SimulatedPowerLossException(IoCall call)
    : IOException($"simulated power loss at {call}")
{
    public IoCall Call { get; } = call;
}
