namespace Voron;

/// <summary>
/// How new pages are placed in the data file (<see cref="StorageEnvironmentOptions.AllocationPolicy"/>).
/// A public option type, so it lives in the root namespace beside the options; its implementations
/// are in Allocation/Policies/.
/// </summary>
public enum AllocationPolicy
{
    /// <summary>
    /// 4 MiB sections with an active section: allocations come from one section while it has room,
    /// then from a section with plenty of free pages, and from the end of the file only when no
    /// section qualifies, so the pages of one flush land in few places. The default.
    /// </summary>
    Sections = 0,

    /// <summary>The lowest free run of the file, else its end: the plain policy, kept for comparison.</summary>
    FirstFit = 1,
}
