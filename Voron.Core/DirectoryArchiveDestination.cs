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
public sealed class DirectoryArchiveDestination : IArchiveDestination
{
    private const string UploadMarker = ".upload-";
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
            File.Delete(stale); // left by a crash or a failed put of this key
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
