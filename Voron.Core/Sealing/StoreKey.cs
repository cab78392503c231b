using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;

namespace Voron.Sealing;

/// <summary>
/// The subkeys of one sealed store, derived from the user's 256-bit key, the store's salt and its
/// id (SL2), and the key check value that tells a wrong key from damage (SL5). The user's key is
/// not kept: only what is derived from it, in pinned buffers that Dispose clears (SL10).
/// <see cref="ToString"/> names the store and the algorithm, never key material.
/// </summary>
internal sealed class StoreKey : IDisposable
{
    private const string InfoPrefix = "voron seal v1 ";

    private readonly byte[] pagesKey;
    private readonly byte[] journalKey;
    private readonly byte[] checkValue;
    private bool disposed;

    private StoreKey(ulong storeId, SealAlgorithm algorithm, byte[] pagesKey, byte[] journalKey, byte[] checkValue)
    {
        StoreId = storeId;
        Algorithm = algorithm;
        this.pagesKey = pagesKey;
        this.journalKey = journalKey;
        this.checkValue = checkValue;
    }

    /// <summary>The store the subkeys are bound to (part of every derivation and every page's AAD).</summary>
    public ulong StoreId { get; }

    public SealAlgorithm Algorithm { get; }

    /// <summary>The 16-byte value the header keeps to recognise this key (SL5).</summary>
    public ReadOnlySpan<byte> CheckValue
    {
        get
        {
            ObjectDisposedException.ThrowIf(disposed, this);
            return checkValue;
        }
    }

    /// <summary>
    /// Derives the subkeys of store <paramref name="storeId"/> from <paramref name="userKey"/>
    /// (exactly 32 bytes, not all zeros) and the store's <paramref name="salt"/> (32 bytes, SL2).
    /// </summary>
    public static StoreKey Derive(ReadOnlySpan<byte> userKey, ReadOnlySpan<byte> salt, ulong storeId, SealAlgorithm algorithm)
    {
        UserKey.Check(userKey, nameof(userKey));

        if (salt.Length != SealFormat.SaltSize)
        {
            throw new ArgumentException($"A store's salt is {SealFormat.SaltSize} bytes; got {salt.Length}.", nameof(salt));
        }

        if (algorithm is not (SealAlgorithm.AesGcm or SealAlgorithm.ChaCha20Poly1305))
        {
            throw new ArgumentOutOfRangeException(nameof(algorithm), algorithm, "A store seals with AesGcm or ChaCha20Poly1305.");
        }

        Span<byte> prk = stackalloc byte[32];
        try
        {
            HKDF.Extract(HashAlgorithmName.SHA256, userKey, salt, prk);
            return new StoreKey(storeId, algorithm,
                Expand(prk, "pages", algorithm, 0, SealFormat.KeySize), // SL2: the salt's, shared by every copy that keeps it
                Expand(prk, "journal", algorithm, storeId, SealFormat.KeySize),
                Expand(prk, "check", algorithm, storeId, SealFormat.CheckValueSize));
        }
        finally
        {
            CryptographicOperations.ZeroMemory(prk);
        }
    }

    /// <summary>
    /// A key drawn at random and never written anywhere: the scratch file's, which nobody reads
    /// after the process that wrote it ends.
    /// </summary>
    public static StoreKey CreateEphemeral(ulong storeId, SealAlgorithm algorithm)
    {
        Span<byte> key = stackalloc byte[SealFormat.KeySize];
        Span<byte> salt = stackalloc byte[SealFormat.SaltSize];
        try
        {
            RandomNumberGenerator.Fill(key);
            RandomNumberGenerator.Fill(salt);
            return Derive(key, salt, storeId, algorithm);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }

    /// <summary>A new store's salt (SL2).</summary>
    public static byte[] NewSalt() => RandomNumberGenerator.GetBytes(SealFormat.SaltSize);

    /// <summary>Whether <paramref name="storedCheckValue"/>, read from a header copy whose checksum held, is this key's (SL5). Constant-time.</summary>
    public bool Matches(ReadOnlySpan<byte> storedCheckValue) =>
        storedCheckValue.Length == SealFormat.CheckValueSize && CryptographicOperations.FixedTimeEquals(CheckValue, storedCheckValue);

    /// <summary>The AEAD of data-file pages and page-file blocks. The caller disposes it.</summary>
    public Aead CreatePagesAead()
    {
        ObjectDisposedException.ThrowIf(disposed, this);
        return new Aead(Algorithm, pagesKey);
    }

    /// <summary>The AEAD of journal records. The caller disposes it.</summary>
    public Aead CreateJournalAead()
    {
        ObjectDisposedException.ThrowIf(disposed, this);
        return new Aead(Algorithm, journalKey);
    }

    public override string ToString() => $"StoreKey (store {StoreId:x16}, {Algorithm}; key material is never shown)";

    public void Dispose()
    {
        if (disposed)
        {
            return;
        }

        disposed = true;
        CryptographicOperations.ZeroMemory(pagesKey);
        CryptographicOperations.ZeroMemory(journalKey);
        CryptographicOperations.ZeroMemory(checkValue);
    }

    /// <summary>Whether every buffer of key material is cleared (after Dispose); for tests of SL10.</summary>
    internal bool IsCleared => !pagesKey.AsSpan().ContainsAnyExcept((byte)0) && !journalKey.AsSpan().ContainsAnyExcept((byte)0) &&
                               !checkValue.AsSpan().ContainsAnyExcept((byte)0);

    private static byte[] Expand(ReadOnlySpan<byte> prk, string purpose, SealAlgorithm algorithm, ulong storeId, int length)
    {
        var purposeBytes = Encoding.ASCII.GetBytes(InfoPrefix + purpose);
        Span<byte> info = stackalloc byte[purposeBytes.Length + 1 + sizeof(ulong)];
        purposeBytes.CopyTo(info);
        info[purposeBytes.Length] = (byte)algorithm;
        BinaryPrimitives.WriteUInt64LittleEndian(info[(purposeBytes.Length + 1)..], storeId);

        // Pinned, so the collector never leaves a copy of key material behind when it compacts.
        var output = GC.AllocateArray<byte>(length, pinned: true);
        HKDF.Expand(HashAlgorithmName.SHA256, prk, output, info);
        return output;
    }
}
