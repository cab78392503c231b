using System.Buffers;
using Voron.Paging;

namespace Voron.Sealing;

/// <summary>
/// The data file's side of a sealed store (SL9, SL10, OP1–OP5): seals page images on their way to
/// the data file and opens pages read from it into the decrypted-page cache. Thread-safe: each
/// thread seals and opens with its own <see cref="PageSeal"/> (SL6), all of them drawing nonces
/// from one source (SL1).
/// </summary>
internal sealed class SealedPages : IDisposable
{
    /// <summary>OP3: the cache's default capacity.</summary>
    public const long DefaultCacheBytes = 256L << 20;

    [ThreadStatic]
    private static byte[]? t_lastOpened; // OP5: the buffer this thread was last handed, for TryGetOwner

    private readonly NonceSource _nonces = new();
    private readonly ThreadLocal<(Aead Aead, PageSeal Seal)> _seals;
    private readonly StoreKey? _ownedKey;

    /// <param name="key">The store's subkeys; they must outlive this instance unless <paramref name="ownsKey"/>.</param>
    /// <param name="cacheBytes">OP3: the decrypted-page cache's capacity.</param>
    /// <param name="ownsKey">Dispose <paramref name="key"/> with this instance (the scratch file's ephemeral key).</param>
    public SealedPages(StoreKey key, long cacheBytes, bool ownsKey = false)
    {
        ArgumentNullException.ThrowIfNull(key);
        _ownedKey = ownsKey ? key : null;
        _seals = new ThreadLocal<(Aead, PageSeal)>(() =>
        {
            var aead = key.CreatePagesAead();
            return (aead, new PageSeal(aead, _nonces));
        }, trackAllValues: true);
        Cache = new DecryptedPageCache(cacheBytes);
    }

    public DecryptedPageCache Cache { get; }

    private PageSeal Seal => _seals.Value.Seal;

    /// <summary>
    /// Whether <paramref name="image"/>, about to be written at <paramref name="pageNumber"/>, is a
    /// page to seal: a page with a header (its own number in it, bytes 24..63 zero), never the
    /// identity page. Anything else is a page-file block, which its writer sealed already (its nonce
    /// and tag are in its map entry, PageFiles/PageFileFormat.cs): a sealed block has the shape of a
    /// page header with probability 2^-384.
    /// </summary>
    public static bool IsPageToSeal(long pageNumber, ReadOnlySpan<byte> image) =>
        pageNumber > 0 && image.Length >= PageHeader.Size && PageHeader.GetPageNumber(image) == pageNumber &&
        !image[SealFormat.PageNonceOffset..PageHeader.Size].ContainsAnyExcept((byte)0);

    /// <summary>Whether stored bytes are a sealed page: its nonce is not zero (a page sealed with the all-zero nonce is a 2^-96 chance).</summary>
    public static bool IsSealedImage(ReadOnlySpan<byte> stored) =>
        stored.Length >= PageHeader.Size && stored.Slice(SealFormat.PageNonceOffset, SealFormat.NonceSize).ContainsAnyExcept((byte)0);

    /// <summary>
    /// SL9: the bytes to write for <paramref name="image"/> at <paramref name="pageNumber"/>: a sealed
    /// copy in an array rented from <see cref="ArrayPool{T}.Shared"/> (return it with
    /// <see cref="Return"/> once written; <paramref name="rented"/> is null when the image is written
    /// as it is).
    /// </summary>
    public ReadOnlyMemory<byte> ForWrite(long pageNumber, ReadOnlyMemory<byte> image, out byte[]? rented)
    {
        if (!IsPageToSeal(pageNumber, image.Span))
        {
            rented = null;
            return image;
        }

        return SealCopy(image.Span, out rented);
    }

    /// <summary>SL9: <paramref name="image"/>, a page to seal, sealed in a copy rented from <see cref="ArrayPool{T}.Shared"/> (give it back with <see cref="Return"/>).</summary>
    public ReadOnlyMemory<byte> SealCopy(ReadOnlySpan<byte> image, out byte[] rented)
    {
        rented = ArrayPool<byte>.Shared.Rent(image.Length);
        var copy = rented.AsSpan(0, image.Length);
        image.CopyTo(copy);
        Seal.Seal(copy);
        return rented.AsMemory(0, image.Length);
    }

    /// <summary>SL9: the bytes a copy of the store holds for <paramref name="image"/> (a backup's page-table versions): sealed in a new array, or the image itself when it is not a page to seal.</summary>
    public ReadOnlySpan<byte> ForCopy(long pageNumber, ReadOnlySpan<byte> image)
    {
        if (!IsPageToSeal(pageNumber, image))
        {
            return image;
        }

        var copy = image.ToArray();
        Seal.Seal(copy);
        return copy;
    }

    /// <summary>Gives back an array <see cref="ForWrite"/> rented. It holds ciphertext only: the seal was made in place.</summary>
    public static void Return(byte[]? rented)
    {
        if (rented != null)
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }

    /// <summary>
    /// The plaintext of the sealed page or run <paramref name="stored"/>, read from <paramref name="file"/>
    /// where page <paramref name="pageNumber"/> lives: from the cache when its version was opened
    /// before (OP1), else opened (every check of SL7) and cached.
    /// </summary>
    public ReadOnlySpan<byte> Open(long pageNumber, ReadOnlySpan<byte> stored, string file) =>
        Open(pageNumber, stored, file, pageNumber * Constants.PageSize, pageNumber);

    /// <summary>
    /// As <see cref="Open(long, ReadOnlySpan{byte}, string)"/> for bytes at <paramref name="offset"/> of
    /// <paramref name="file"/>, cached under <paramref name="cacheKey"/> (the scratch file: its slot's offset).
    /// </summary>
    public ReadOnlySpan<byte> Open(long pageNumber, ReadOnlySpan<byte> stored, string file, long offset, long cacheKey)
    {
        var nonce = stored.Slice(SealFormat.PageNonceOffset, SealFormat.NonceSize);
        if (Cache.TryGet(cacheKey, nonce, out var cached) && cached.Length == stored.Length)
        {
            return t_lastOpened = cached;
        }

        var opened = GC.AllocateUninitializedArray<byte>(stored.Length, pinned: true); // OP5
        Seal.Open(stored, opened, pageNumber, file, offset);
        Cache.Add(cacheKey, nonce, opened);
        return t_lastOpened = opened;
    }

    /// <summary>
    /// OP5: the opened buffer <paramref name="page"/> is, when it is the one this thread was last
    /// handed by <see cref="Open(long, ReadOnlySpan{byte}, string)"/> or <see cref="OpenBlock"/>
    /// (a pinned array: its address is stable while <paramref name="owner"/> is referenced).
    /// </summary>
    public static bool TryGetOwner(ReadOnlySpan<byte> page, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out byte[]? owner)
    {
        owner = t_lastOpened;
        if (owner != null && owner.Length == page.Length &&
            System.Runtime.CompilerServices.Unsafe.AreSame(ref System.Runtime.InteropServices.MemoryMarshal.GetReference(page), ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(owner)))
        {
            return true;
        }

        owner = null;
        return false;
    }

    /// <summary>Opens a sealed page or run into <paramref name="destination"/> without the cache (recovery, tools).</summary>
    public void OpenInto(long pageNumber, ReadOnlySpan<byte> stored, Span<byte> destination, string file) =>
        OpenInto(pageNumber, stored, destination, file, pageNumber * Constants.PageSize);

    /// <summary>As <see cref="OpenInto(long, ReadOnlySpan{byte}, Span{byte}, string)"/> for bytes at <paramref name="offset"/> of <paramref name="file"/>.</summary>
    public void OpenInto(long pageNumber, ReadOnlySpan<byte> stored, Span<byte> destination, string file, long offset) =>
        Seal.Open(stored, destination, pageNumber, file, offset);

    /// <summary>
    /// The plaintext of the sealed page-file block <paramref name="stored"/> of page
    /// <paramref name="pageNumber"/>, whose nonce and tag its map entry keeps (PF3, PF5): cached per nonce (OP1).
    /// </summary>
    public ReadOnlySpan<byte> OpenBlock(long pageNumber, ReadOnlySpan<byte> stored, scoped ReadOnlySpan<byte> nonceAndTag, string file)
    {
        var nonce = nonceAndTag[..SealFormat.NonceSize];
        if (Cache.TryGet(pageNumber, nonce, out var cached) && cached.Length == stored.Length)
        {
            return t_lastOpened = cached;
        }

        var opened = GC.AllocateUninitializedArray<byte>(stored.Length, pinned: true); // OP5
        Seal.OpenBlock(stored, nonceAndTag, opened, pageNumber, file, pageNumber * Constants.PageSize);
        Cache.Add(pageNumber, nonce, opened);
        return t_lastOpened = opened;
    }

    /// <summary>PF6: seals <paramref name="block"/> (page <paramref name="pageNumber"/>) in place and writes its nonce and tag.</summary>
    public void SealBlock(Span<byte> block, long pageNumber, Span<byte> nonceAndTag) => Seal.SealBlock(block, pageNumber, nonceAndTag);

    public void Dispose()
    {
        foreach (var (aead, _) in _seals.Values)
        {
            aead.Dispose();
        }

        _seals.Dispose();
        _ownedKey?.Dispose();
    }
}
