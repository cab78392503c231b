namespace Voron;

/// <summary>
/// Where a store's archive goes beyond its machine: a directory (<see cref="DirectoryArchiveDestination"/>),
/// an S3-compatible bucket or an Azure Blob container (the Voron.ObjectStorage package). Four
/// operations, which every object store offers; the archive's rules (immutable objects, lineages,
/// checksums: docs/object-storage.md) are kept above them, by the code that names the objects.
/// </summary>
/// <remarks>
/// The contract every implementation keeps (the fault-injecting tests model exactly these):
/// <list type="bullet">
/// <item>AD1. <see cref="PutIfAbsentAsync"/> stores the whole object or nothing: a reader never sees
/// part of an object, even when the upload fails halfway. It returns true when it stored the object,
/// false when an object of that key was already there (left untouched).</item>
/// <item>AD2. A stored object is never changed in place; only <see cref="DeleteAsync"/> removes it.
/// Where the service cannot refuse a put on an existing key atomically (s3rver and S3-compatible
/// servers without <c>If-None-Match</c>), the implementation checks first and says so in its
/// documentation: two writers racing on one key may then both succeed.</item>
/// <item>AD3. <see cref="GetAsync"/> returns null for a missing object, never an empty stream.</item>
/// <item>AD4. <see cref="ListAsync"/> lists keys in ordinal order, each once. A listing may be stale
/// (miss the newest objects); callers treat "not listed" as "not known yet", never as "absent".</item>
/// <item>AD5. <see cref="DeleteAsync"/> of a missing object succeeds.</item>
/// <item>AD6. A failure throws (any exception): the caller retries later; nothing is assumed stored.</item>
/// </list>
/// Keys are relative paths of ASCII letters, digits, '-', '_', '.' and '/' (no leading '/', no "..").
/// </remarks>
public interface IArchiveDestination
{
    /// <summary>Where this destination writes, for messages (a directory, a bucket's URL).</summary>
    string Description { get; }

    /// <summary>Stores <paramref name="length"/> bytes of <paramref name="content"/> under <paramref name="key"/>
    /// unless an object of that key exists (AD1, AD2): true when stored, false when one was there.</summary>
    Task<bool> PutIfAbsentAsync(string key, Stream content, long length, CancellationToken cancellationToken = default);

    /// <summary>The object's bytes from <paramref name="offset"/>, at most <paramref name="length"/> of them
    /// (null = to its end), or null when there is no such object (AD3). The caller disposes the stream.</summary>
    Task<Stream?> GetAsync(string key, long offset = 0, long? length = null, CancellationToken cancellationToken = default);

    /// <summary>The objects whose key starts with <paramref name="prefix"/> and sorts after
    /// <paramref name="startAfter"/> (null = from the first), in ordinal key order (AD4).</summary>
    IAsyncEnumerable<ArchiveObjectInfo> ListAsync(string prefix, string? startAfter = null, CancellationToken cancellationToken = default);

    /// <summary>Deletes the object; a missing one is no error (AD5).</summary>
    Task DeleteAsync(string key, CancellationToken cancellationToken = default);
}

/// <summary>One object of an <see cref="IArchiveDestination"/>.</summary>
/// <param name="Key">Its key.</param>
/// <param name="Length">Its length in bytes.</param>
public sealed record ArchiveObjectInfo(string Key, long Length);
