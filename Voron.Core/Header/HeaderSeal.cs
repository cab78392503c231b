using Voron.Sealing;

namespace Voron.Header;

/// <summary>
/// The seal fields of a sealed store's header (format version 4; FORMAT block in HeaderFile.cs):
/// the AEAD, the salt of the key derivation and the key check value (SL2, SL5, SL6). Plaintext by
/// design: none of them reveals the key or the data.
/// </summary>
internal sealed record HeaderSeal(SealAlgorithm Algorithm, byte[] Salt, byte[] CheckValue)
{
    /// <summary>
    /// The seal fields of store <paramref name="storeId"/> under <paramref name="userKey"/>. A new
    /// store draws its salt; a copy (backup, restore) keeps its source's salt and algorithm under
    /// its own store id (SL2), so the source's archived journal opens with the copy's salt.
    /// </summary>
    public static HeaderSeal For(ReadOnlySpan<byte> userKey, byte[] salt, ulong storeId, SealAlgorithm algorithm)
    {
        using var key = StoreKey.Derive(userKey, salt, storeId, algorithm);
        return new HeaderSeal(algorithm, salt, key.CheckValue.ToArray());
    }
}
