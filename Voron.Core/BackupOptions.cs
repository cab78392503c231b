namespace Voron;

/// <summary>
/// How <see cref="StorageEnvironment.BackupAsync"/> copies a store. The defaults copy every page as
/// of one snapshot, verify the copy and never throttle.
/// </summary>
/// <example>
/// <code>
/// var result = await env.BackupAsync("/backups/2026-11-27", new BackupOptions { MaxBytesPerSecond = 200L &lt;&lt; 20 }, ct);
/// </code>
/// </example>
public sealed class BackupOptions
{
    /// <summary>
    /// Write the live pages densely, tree by tree in key order, into a new store (like
    /// <c>mdb_copy -c</c> or <c>VACUUM INTO</c>) instead of copying the data file page by page.
    /// A compacted copy is a new store: journal archives of the source cannot be replayed onto it.
    /// Default false.
    /// </summary>
    public bool Compact { get; set; }

    /// <summary>Bytes written to the destination per second at most; null (default) = as fast as the disks go.</summary>
    public long? MaxBytesPerSecond { get; set; }

    /// <summary>
    /// Whether the copy is opened and every page of it checked (<see cref="StorageEnvironment.CheckIntegrity()"/>)
    /// before its manifest is written (the manifest makes the directory a backup). Default true.
    /// </summary>
    public bool Verify { get; set; } = true;

    /// <summary>Reports progress about every 100 ms and at each phase's end; null (default) = none.</summary>
    public IProgress<BackupProgress>? Progress { get; set; }
}
