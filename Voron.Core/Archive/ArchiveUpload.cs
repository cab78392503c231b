namespace Voron.Archive;

/// <summary>Puts a local file into a destination as an archive object (header + content, the FORMAT
/// block in ArchiveObjectHeader.cs), and reads objects back validated (AO2, AO3).</summary>
internal static class ArchiveUpload
{
    /// <summary>
    /// Uploads <paramref name="path"/> under <paramref name="key"/> with <paramref name="header"/>
    /// (its ContentLength and After are filled in here) and returns the header stored. AO3: an
    /// object already under the key with the same header is this upload done before (a retry after
    /// a reply was lost): accepted. Any other object there is refused with an IOException.
    /// </summary>
    public static async Task<ArchiveObjectHeader> PutFileAsync(IArchiveDestination destination, string key, string path, ArchiveObjectHeader header,
        CancellationToken cancellationToken)
    {
        await using var content = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1 << 16, FileOptions.Asynchronous);
        var after = await ArchiveObjectHeader.HashAsync(header.Before, content, cancellationToken).ConfigureAwait(false);
        header = header with { ContentLength = content.Length, After = after };
        var encoded = header.Encode();
        content.Position = 0;
        var upload = new ArchiveStreams.Prefixed(encoded, content);
        if (await destination.PutIfAbsentAsync(key, upload, upload.Length, cancellationToken).ConfigureAwait(false))
        {
            return header;
        }

        var existing = await ReadHeaderBytesAsync(destination, key, cancellationToken).ConfigureAwait(false);
        if (existing == null)
        {
            throw new IOException($"'{key}' in {destination.Description} was refused as present, then could not be read: the destination deleted it meanwhile. " +
                "The upload is retried.");
        }

        if (!existing.AsSpan().SequenceEqual(encoded))
        {
            throw new IOException(
                $"AO3: {destination.Description} already holds '{key}' with other contents than '{path}'. Archived objects are never overwritten: " +
                "is another store, or another copy of this store's directory, shipping to the same place? Stop it, and give each store its own " +
                "destination (or move the conflicting objects away).");
        }

        return header;
    }

    /// <summary>Uploads a content-less object (a fork note); AO3 as above.</summary>
    public static async Task PutHeaderOnlyAsync(IArchiveDestination destination, string key, ArchiveObjectHeader header, CancellationToken cancellationToken)
    {
        header = header with { ContentLength = 0, After = await ArchiveObjectHeader.HashAsync(header.Before, Stream.Null, cancellationToken).ConfigureAwait(false) };
        var encoded = header.Encode();
        if (!await destination.PutIfAbsentAsync(key, new MemoryStream(encoded), encoded.Length, cancellationToken).ConfigureAwait(false) &&
            !(await ReadHeaderBytesAsync(destination, key, cancellationToken).ConfigureAwait(false) ?? []).AsSpan().SequenceEqual(encoded))
        {
            throw new IOException($"AO3: {destination.Description} already holds '{key}' with other contents.");
        }
    }

    /// <summary>The object's first 160 bytes, or null when it is missing.</summary>
    public static async Task<byte[]?> ReadHeaderBytesAsync(IArchiveDestination destination, string key, CancellationToken cancellationToken)
    {
        await using var stream = await destination.GetAsync(key, 0, ArchiveObjectHeader.Size, cancellationToken).ConfigureAwait(false);
        if (stream == null)
        {
            return null;
        }

        var bytes = new byte[ArchiveObjectHeader.Size];
        var read = await ArchiveStreams.ReadAtMostAsync(stream, bytes, cancellationToken).ConfigureAwait(false);
        return bytes[..read];
    }

    /// <summary>The object's validated header (AO2's header half), or null when it is missing.</summary>
    public static async Task<ArchiveObjectHeader?> ReadHeaderAsync(IArchiveDestination destination, string key, CancellationToken cancellationToken)
    {
        var bytes = await ReadHeaderBytesAsync(destination, key, cancellationToken).ConfigureAwait(false);
        return bytes == null ? null : ArchiveObjectHeader.Decode(bytes, Where(destination, key));
    }

    /// <summary>
    /// Downloads the object under <paramref name="key"/> into <paramref name="path"/> without its
    /// header, checking all of AO2 (the content's length and its After) before the file gets its
    /// name: a damaged object never becomes a local file. Returns the header, or null when missing.
    /// </summary>
    public static async Task<ArchiveObjectHeader?> DownloadAsync(IArchiveDestination destination, string key, string path, CancellationToken cancellationToken)
    {
        await using var stream = await destination.GetAsync(key, 0, null, cancellationToken).ConfigureAwait(false);
        if (stream == null)
        {
            return null;
        }

        var where = Where(destination, key);
        var headerBytes = new byte[ArchiveObjectHeader.Size];
        var read = await ArchiveStreams.ReadAtMostAsync(stream, headerBytes, cancellationToken).ConfigureAwait(false);
        var header = ArchiveObjectHeader.Decode(headerBytes.AsSpan(0, read), where);
        var partial = path + ".download";
        using var hash = System.Security.Cryptography.IncrementalHash.CreateHash(System.Security.Cryptography.HashAlgorithmName.SHA256);
        hash.AppendData(header.Before);
        long length = 0;
        await using (var file = new FileStream(partial, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 16, FileOptions.Asynchronous))
        {
            var buffer = new byte[1 << 16];
            while ((read = await stream.ReadAsync(buffer, cancellationToken).ConfigureAwait(false)) > 0)
            {
                hash.AppendData(buffer, 0, read);
                await file.WriteAsync(buffer.AsMemory(0, read), cancellationToken).ConfigureAwait(false);
                length += read;
            }

            file.Flush(flushToDisk: true);
        }

        if (length != header.ContentLength || !hash.GetHashAndReset().AsSpan().SequenceEqual(header.After))
        {
            File.Delete(partial);
            throw new CorruptionException(where, ArchiveObjectHeader.Size,
                length != header.ContentLength
                    ? $"AO2: the object holds {length:N0} content bytes, its header says {header.ContentLength:N0}: the object is damaged or cut"
                    : "AO2: the object's content does not hash to its header's After: the object is damaged");
        }

        File.Move(partial, path, overwrite: true);
        return header;
    }

    public static string Where(IArchiveDestination destination, string key) => $"{destination.Description.TrimEnd('/')}/{key}";
}
