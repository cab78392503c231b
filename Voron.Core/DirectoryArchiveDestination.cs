using System.Runtime.CompilerServices;
using Voron.Archive;

namespace Voron;

/// <summary>
/// An <see cref="IArchiveDestination"/> in a directory (a mounted disk, a network share): each
/// object is a file whose relative path is its key.
/// </summary>
/// <remarks>
/// AD1: an object is written to a temporary name beside it ("*.upload-*", never listed), flushed,
/// and linked to its final name without replacing (<see cref="File.Move(string, string, bool)"/>
/// with overwrite false), then the directory is synced: a reader sees a whole object or none, and
/// an existing object is never replaced (AD2). A crash can leave a temporary file, which the next
/// put of the same key deletes.
/// <para>Conditional writes (<see cref="IArchiveLeaseStore"/>, LW1..LW5): a write holds the key's lock
/// file ("*.upload-lock", an exclusive open, which excludes other processes of this machine and other
/// writers in this one), reads the current bytes, compares their version (the first 32 hex digits of
/// their SHA-256), and replaces the object by a rename. A reader needs no lock: the rename shows it
/// the whole old object or the whole new one. Across machines this holds only where the shared file
/// system honours exclusive opens (a local disk does; some network shares do not).</para>
/// </remarks>
/// <example>
/// <code>
/// var destination = new DirectoryArchiveDestination("/mnt/offsite/voron");
/// var stored = await destination.PutIfAbsentAsync("notes/hello", new MemoryStream([1, 2, 3]), 3);
/// await foreach (var item in destination.ListAsync("notes/"))
/// {
///     Console.WriteLine($"{item.Key}: {item.Length} bytes");
/// }
/// </code>
/// </example>
public sealed class DirectoryArchiveDestination : IArchiveDestination, IArchiveLeaseStore
{
    private const string UploadMarker = ".upload-";
    private const string LockSuffix = UploadMarker + "lock";
    private readonly string _root;
    private readonly Platform.IFileSystem _fileSystem;

    /// <summary>A destination writing under <paramref name="directory"/> (created when missing).</summary>
    public DirectoryArchiveDestination(string directory)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(directory);
        _root = Path.GetFullPath(directory);
        _fileSystem = StorageEnvironmentOptions.ForDirectory(_root).FileSystem;
    }

    /// <inheritdoc />
    public string Description => _root;

    /// <inheritdoc />
    public async Task<bool> PutIfAbsentAsync(string key, Stream content, long length, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(content);
        var path = PathOf(key);
        if (File.Exists(path))
        {
            return false;
        }

        var directory = Path.GetDirectoryName(path)!;
        Directory.CreateDirectory(directory);
        foreach (var stale in Directory.EnumerateFiles(directory, Path.GetFileName(path) + UploadMarker + "*"))
        {
            if (!stale.EndsWith(LockSuffix, StringComparison.Ordinal))
            {
                File.Delete(stale); // left by a crash or a failed put of this key
            }
        }

        var temporary = path + UploadMarker + Guid.NewGuid().ToString("N")[..12];
        try
        {
            await using (var file = new FileStream(temporary, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1 << 16, FileOptions.Asynchronous))
            {
                await ArchiveStreams.CopyExactlyAsync(content, file, length, key, cancellationToken).ConfigureAwait(false);
                file.Flush(flushToDisk: true);
            }

            try
            {
                File.Move(temporary, path, overwrite: false); // AD2: never replaces
            }
            catch (IOException) when (File.Exists(path))
            {
                return false;
            }

            SyncParents(directory);
            return true;
        }
        finally
        {
            File.Delete(temporary);
        }
    }

    /// <inheritdoc />
    public Task<Stream?> GetAsync(string key, long offset = 0, long? length = null, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        var path = PathOf(key);
        FileStream file;
        try
        {
            file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1 << 16, FileOptions.Asynchronous);
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            return Task.FromResult<Stream?>(null);
        }

        file.Position = Math.Min(offset, file.Length);
        var remaining = file.Length - file.Position;
        return Task.FromResult<Stream?>(new ArchiveStreams.Limited(file, length is { } limit ? Math.Min(limit, remaining) : remaining));
    }

    /// <inheritdoc />
    public async IAsyncEnumerable<ArchiveObjectInfo> ListAsync(string prefix, string? startAfter = null,
        [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        await Task.Yield();
        if (!Directory.Exists(_root))
        {
            yield break;
        }

        // The deepest directory the prefix names whole: only its subtree can hold matching keys.
        var slash = prefix.LastIndexOf('/');
        var start = slash < 0 ? _root : PathOf(prefix[..slash]);
        if (!Directory.Exists(start))
        {
            yield break;
        }

        var found = new List<ArchiveObjectInfo>();
        foreach (var file in Directory.EnumerateFiles(start, "*", SearchOption.AllDirectories))
        {
            var key = Path.GetRelativePath(_root, file).Replace(Path.DirectorySeparatorChar, '/');
            if (key.Contains(UploadMarker, StringComparison.Ordinal) || !key.StartsWith(prefix, StringComparison.Ordinal) ||
                startAfter != null && string.CompareOrdinal(key, startAfter) <= 0)
            {
                continue;
            }

            long size;
            try
            {
                size = new FileInfo(file).Length;
            }
            catch (FileNotFoundException)
            {
                continue; // deleted while listed
            }

            found.Add(new ArchiveObjectInfo(key, size));
        }

        found.Sort((a, b) => string.CompareOrdinal(a.Key, b.Key));
        foreach (var item in found)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return item;
        }
    }

    /// <inheritdoc />
    public Task DeleteAsync(string key, CancellationToken cancellationToken = default)
    {
        var path = PathOf(key);
        if (File.Exists(path))
        {
            File.Delete(path);
            _fileSystem.SyncDirectory(Path.GetDirectoryName(path)!);
        }

        return Task.CompletedTask;
    }

    /// <inheritdoc />
    public async Task<ArchiveVersionedObject?> GetVersionedAsync(string key, CancellationToken cancellationToken = default)
    {
        var path = PathOf(key);
        try
        {
            var bytes = await File.ReadAllBytesAsync(path, cancellationToken).ConfigureAwait(false);
            return new ArchiveVersionedObject(bytes, VersionOf(bytes));
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            return null; // LW3
        }
    }

    /// <inheritdoc />
    public async Task<string?> PutIfVersionAsync(string key, ReadOnlyMemory<byte> content, string? ifVersion, CancellationToken cancellationToken = default)
    {
        var path = PathOf(key);
        var directory = Path.GetDirectoryName(path)!;
        Directory.CreateDirectory(directory);
        using var held = await LockAsync(path + LockSuffix, cancellationToken).ConfigureAwait(false);
        byte[]? current;
        try
        {
            current = await File.ReadAllBytesAsync(path, cancellationToken).ConfigureAwait(false);
        }
        catch (FileNotFoundException)
        {
            current = null;
        }

        if (ifVersion == null ? current != null : current == null || VersionOf(current) != ifVersion)
        {
            return null; // LW1: the condition does not hold
        }

        var temporary = path + UploadMarker + Guid.NewGuid().ToString("N")[..12];
        try
        {
            await using (var file = new FileStream(temporary, FileMode.CreateNew, FileAccess.Write, FileShare.None, 4096, FileOptions.Asynchronous))
            {
                await file.WriteAsync(content, cancellationToken).ConfigureAwait(false);
                file.Flush(flushToDisk: true);
            }

            File.Move(temporary, path, overwrite: true); // under the lock: nobody replaced it since the read
            SyncParents(directory);
            return VersionOf(content.Span);
        }
        finally
        {
            File.Delete(temporary);
        }
    }

    /// <summary>LW2: the first 32 hex digits of the bytes' SHA-256.</summary>
    private static string VersionOf(ReadOnlySpan<byte> bytes) => Convert.ToHexStringLower(System.Security.Cryptography.SHA256.HashData(bytes))[..32];

    /// <summary>Opens the lock file exclusively, waiting while another writer holds it (it holds it for one small write).</summary>
    private static async Task<FileStream> LockAsync(string path, CancellationToken cancellationToken)
    {
        for (var attempt = 0; ; attempt++)
        {
            try
            {
                return new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
            }
            catch (IOException) when (attempt < 2_000 && !cancellationToken.IsCancellationRequested)
            {
                await Task.Delay(5, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    private string PathOf(string key)
    {
        ArchiveKeys.Validate(key);
        return Path.Combine(_root, key.Replace('/', Path.DirectorySeparatorChar));
    }

    /// <summary>The new file's name is durable, and so is each directory created for it, up to the root.</summary>
    private void SyncParents(string directory)
    {
        for (var at = directory; ; at = Path.GetDirectoryName(at)!)
        {
            _fileSystem.SyncDirectory(at);
            if (at.Length <= _root.Length)
            {
                break;
            }
        }
    }
}
