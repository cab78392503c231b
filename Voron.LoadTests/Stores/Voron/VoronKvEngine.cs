using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// Voron.Core as a key-value engine: one tree, one durable write transaction per batch. It can
/// also close, compact and reopen its store (<see cref="ICompactable"/>, <c>churn</c>'s
/// <c>voron-compact</c>). Sealed (<c>voron-sealed</c>) when it is given a key.
/// </summary>
internal sealed class VoronKvEngine : IKvEngine, ICompactable
{
    internal const string TreeName = "kv";
    private readonly SimulatedDisk _disk;
    private readonly bool _portable;
    private readonly byte[]? _sealingKey;
    private StorageEnvironment _environment;
    private byte[] _scanValue = new byte[1024];

    /// <param name="sealingKey">The key the store is sealed with (<see cref="VoronStore.NewSealingKey"/>), kept to reopen it; null: not sealed.</param>
    internal VoronKvEngine(string directory, SimulatedDisk disk, bool portable = false, string? name = null, byte[]? sealingKey = null)
    {
        Directory = directory;
        Name = name ?? (portable ? KvEngineCatalog.VoronPortable : KvEngineCatalog.Voron);
        _disk = disk;
        _portable = portable;
        _sealingKey = sealingKey;
        _environment = VoronStore.Open(directory, disk, portable, sealingKey: sealingKey);
    }

    public string Name { get; }

    public string Directory { get; }

    /// <summary>The store, for experiments that also measure Voron-only figures (journal bytes).</summary>
    internal StorageEnvironment Environment => _environment;

    public void WriteBatch(IReadOnlyList<KvWrite> writes)
    {
        using var tx = _environment.BeginWrite();
        var tree = tx.CreateTree(TreeName);
        foreach (var write in writes)
        {
            if (write.Value is { } value)
            {
                tree.Put(write.Key, value);
            }
            else
            {
                tree.Delete(write.Key);
            }
        }

        tx.Commit();
    }

    public void Settle() => _environment.FlushToDataFile();

    public IKvReader OpenReader() => new VoronKvReader(_environment);

    public string TreeOccupancy() => VoronSpace.Measure(_environment).Trees.First(t => t.Name == TreeName).Occupancy.ToString();

    public long ScanAll()
    {
        using var read = _environment.BeginRead();
        return Scan(read.OpenTree(TreeName), ref _scanValue);
    }

    /// <summary>Every entry of <paramref name="tree"/> in key order, each value copied out.</summary>
    internal static long Scan(Tree? tree, ref byte[] buffer)
    {
        if (tree == null)
        {
            return 0;
        }

        long count = 0;
        var iterator = tree.Iterate();
        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            CopyOut(iterator.Value, ref buffer);
            count++;
        }

        return count;
    }

    /// <summary>Copies a value out of the transaction's view into <paramref name="buffer"/> (grown if too small); returns its length.</summary>
    internal static int CopyOut(ReadOnlySpan<byte> value, ref byte[] buffer)
    {
        if (value.Length > buffer.Length)
        {
            buffer = new byte[value.Length];
        }

        value.CopyTo(buffer);
        return value.Length;
    }

    /// <summary>
    /// Closes the store, compacts it offline (the compaction takes the store's lock, so it must be
    /// closed) with the same options it runs with, and opens it again.
    /// </summary>
    public async Task<CompactionResult> CompactAsync(CancellationToken cancellationToken = default)
    {
        _environment.Dispose();
        try
        {
            return await StorageEnvironment.CompactAsync(VoronStore.Options(Directory, _disk, _portable, sealingKey: _sealingKey), progress: null, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            // Reopened whether or not the compaction worked: a failed compaction leaves the store
            // as it was (a failure before the commit point deletes the copy), and Dispose below
            // must find an open store.
            _environment = VoronStore.Open(Directory, _disk, _portable, sealingKey: _sealingKey);
        }
    }

    public void Dispose() => _environment.Dispose();
}
