namespace Voron.Tests.Core.Archive;

/// <summary>
/// A real destination with faults injected at the interface, each one a way object stores fail:
/// down (every call throws), a put that breaks halfway (nothing stored, AD1), a put whose reply is
/// lost (stored, yet the caller sees an error), a stale listing that misses the newest keys (AD4).
/// </summary>
internal sealed class FaultyDestination(IArchiveDestination inner) : IArchiveDestination
{
    public bool Down { get; set; }

    /// <summary>The next this-many puts read half their content and throw, storing nothing.</summary>
    public int PutsBreakingHalfway { get; set; }

    /// <summary>The next this-many puts store the object, then throw as if the reply were lost.</summary>
    public int RepliesLost { get; set; }

    /// <summary>The next this-many listings leave out their last this-many keys.</summary>
    public int StaleListings { get; set; }

    public int StaleBy { get; set; } = 1;

    public int Puts { get; private set; }

    public string Description => "faulty:" + inner.Description;

    public async Task<bool> PutIfAbsentAsync(string key, Stream content, long length, CancellationToken cancellationToken = default)
    {
        ThrowIfDown();
        Puts++;
        if (PutsBreakingHalfway > 0)
        {
            PutsBreakingHalfway--;
            var half = new byte[length / 2];
            await content.ReadAtLeastAsync(half, half.Length, throwOnEndOfStream: false, cancellationToken);
            throw new IOException($"the upload of '{key}' broke halfway (injected)");
        }

        var stored = await inner.PutIfAbsentAsync(key, content, length, cancellationToken);
        if (RepliesLost > 0)
        {
            RepliesLost--;
            throw new IOException($"the reply to the upload of '{key}' was lost (injected)");
        }

        return stored;
    }

    /// <summary>Every key read (a replica's restart must not read its snapshot again).</summary>
    public System.Collections.Concurrent.ConcurrentQueue<string> KeysRead { get; } = new();

    public Task<Stream?> GetAsync(string key, long offset = 0, long? length = null, CancellationToken cancellationToken = default)
    {
        ThrowIfDown();
        KeysRead.Enqueue(key);
        return inner.GetAsync(key, offset, length, cancellationToken);
    }

    public async IAsyncEnumerable<ArchiveObjectInfo> ListAsync(string prefix, string? startAfter = null,
        [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        ThrowIfDown();
        var items = new List<ArchiveObjectInfo>();
        await foreach (var item in inner.ListAsync(prefix, startAfter, cancellationToken))
        {
            items.Add(item);
        }

        if (StaleListings > 0)
        {
            StaleListings--;
            items = items.Take(Math.Max(0, items.Count - StaleBy)).ToList();
        }

        foreach (var item in items)
        {
            yield return item;
        }
    }

    public Task DeleteAsync(string key, CancellationToken cancellationToken = default)
    {
        ThrowIfDown();
        return inner.DeleteAsync(key, cancellationToken);
    }

    private void ThrowIfDown()
    {
        if (Down)
        {
            throw new HttpRequestException("the destination is down (injected)");
        }
    }
}
