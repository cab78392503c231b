namespace Voron.LoadTests.Capabilities;

/// <summary>One mode of the <c>merge</c> suite.</summary>
/// <param name="Mode">The mode's name in report rows; matches <see cref="IConcurrentWriter.Mode"/>.</param>
/// <param name="OpenLoop">Whether the open loop (fixed arrival rates) runs it too, not only the closed loop.</param>
/// <param name="Peer">The key-value engine (<see cref="KvEngineCatalog"/>) whose library must load for the mode to run; null when nothing can go missing.</param>
/// <param name="Open">Opens (creates) the store in an existing directory, on a disk.</param>
internal sealed record ConcurrentWriterKind(string Mode, bool OpenLoop, string? Peer, Func<string, SimulatedDisk, IConcurrentWriter> Open);
