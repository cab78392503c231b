namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>
/// One path of the shop workload: its report name and how to create and load it in an empty
/// directory on a disk (<see cref="OrderPaths.OpenAsync"/> says what opening does); for a sealed
/// variant, the path it is the same as but for the key (<see cref="SealedTwins"/>), null for the others.
/// </summary>
internal sealed record OrderPathKind(string Name, Func<string, OrdersSize, SimulatedDisk, Task<IOrderPath>> OpenAsync, string? UnsealedTwin = null);
