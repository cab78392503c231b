namespace Voron.LoadTests.Engines.Voron;

/// <summary>Voron.Core as a key-value engine: one tree, one durable write transaction per batch.</summary>
internal sealed class VoronKvEngine : IKvEngine
{
    internal const string TreeName = "kv";
    private readonly StorageEnvironment _environment;

    internal VoronKvEngine(string directory)
    {
        _environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
    }

    public string Name => KvEngineCatalog.Voron;

    public void InsertBatch(IReadOnlyList<(byte[] Key, byte[] Value)> items)
    {
        using var tx = _environment.BeginWrite();
        var tree = tx.CreateTree(TreeName);
        foreach (var (key, value) in items)
        {
            tree.Put(key, value);
        }

        tx.Commit();
    }

    public IKvReader OpenReader() => new VoronKvReader(_environment.BeginRead());

    public long ScanAll()
    {
        using var read = _environment.BeginRead();
        var tree = read.OpenTree(TreeName);
        if (tree == null)
        {
            return 0;
        }

        var buffer = new byte[1024];
        long count = 0;
        var iterator = tree.Iterate();
        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            var value = iterator.Value;
            if (value.Length > buffer.Length)
            {
                buffer = new byte[value.Length];
            }

            value.CopyTo(buffer);
            count++;
        }

        return count;
    }

    public void Dispose() => _environment.Dispose();
}
