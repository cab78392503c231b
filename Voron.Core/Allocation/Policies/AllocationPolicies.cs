namespace Voron.Allocation.Policies;

/// <summary>Creates the policy the options name for one write transaction.</summary>
internal static class AllocationPolicies
{
    public static IAllocationPolicy Create(StorageEnvironmentOptions options, SectionCursor cursor) => options.AllocationPolicy switch
    {
        AllocationPolicy.FirstFit => new FirstFitPolicy(),
        _ => new SectionAllocationPolicy(cursor, options.MinFreePagesToSwitch, options.MaxSectionsToScan, options.MaxFreeSpacePercent),
    };
}
