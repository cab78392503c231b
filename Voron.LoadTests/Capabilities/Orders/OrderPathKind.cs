namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>
/// One path of the shop workload: its report name and how to create and load it in an empty
/// directory on a disk (<see cref="OrderPaths.OpenAsync"/> says what opening does).
/// </summary>
internal sealed record OrderPathKind(string Name, Func<string, OrdersSize, SimulatedDisk, Task<IOrderPath>> OpenAsync);
