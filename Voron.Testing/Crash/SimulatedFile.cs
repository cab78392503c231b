namespace Voron.Testing.Crash;

/// <summary>
/// The crash simulator's model of one file (an inode, whatever names it has): the bytes a disk
/// durably holds, and the changes made since the last FlushData, in order. The current bytes —
/// what reads and mappings see (F3) — live in the simulator's InMemoryFileSystem beside it.
/// Guarded by the owning <see cref="CrashFileSystem"/>'s lock.
/// </summary>
internal sealed class SimulatedFile(int id, string path, FileImage durable)
{
    private readonly List<PendingChange> _pending = [];

    public int Id { get; } = id;

    /// <summary>The last name the file had, for messages.</summary>
    public string Path { get; set; } = path;

    public FileImage Durable { get; private set; } = durable;

    public IReadOnlyList<PendingChange> Pending => _pending;

    public void Record(PendingChange change) => _pending.Add(change);

    /// <summary>A FlushData returned: every earlier change is durable.</summary>
    public void Sync()
    {
        foreach (var change in _pending)
        {
            switch (change)
            {
                case PendingWrite write:
                    Durable.Write(write.Offset, write.Bytes);
                    break;
                case PendingResize { GrowOnly: true } grow:
                    Durable.Extend(grow.Length);
                    break;
                case PendingResize resize:
                    Durable.SetLength(resize.Length);
                    break;
            }
        }

        _pending.Clear();
    }

    /// <summary>
    /// A FlushData failed (Linux "fsyncgate"): the kernel may have dropped the unsynced pages
    /// after marking them clean, so whatever of them reached the disk is all that ever will,
    /// even if a later FlushData succeeds. Decided now, by <paramref name="policy"/>.
    /// </summary>
    public void LoseUnsynced(PowerLossPolicy policy)
    {
        Durable = AfterPowerLoss(policy);
        _pending.Clear();
    }

    /// <summary>
    /// The bytes a power loss now would leave, as <paramref name="policy"/> decides. One ordering
    /// rule holds, as on journaling file systems: a write that reached the disk past the file's
    /// durable end implies that the size changes issued before it (a preallocation the write
    /// relies on) reached the disk too.
    /// </summary>
    public FileImage AfterPowerLoss(PowerLossPolicy policy)
    {
        var image = Durable.Clone();
        var droppedGrowth = 0L;
        foreach (var change in _pending)
        {
            switch (change)
            {
                case PendingWrite write:
                    var before = image.Length;
                    policy.Apply(image, write, Path);
                    if (image.Length > before && droppedGrowth > before)
                    {
                        image.Extend(droppedGrowth);
                    }

                    break;
                case PendingResize resize:
                    if (!policy.Apply(image, resize) && resize.GrowOnly)
                    {
                        droppedGrowth = Math.Max(droppedGrowth, resize.Length);
                    }

                    break;
            }
        }

        return image;
    }
}
