namespace Voron.Sealing;

/// <summary>
/// Seals and opens a byte range — a journal record's compressed payload — as nonce | ciphertext |
/// tag (the FORMAT block in SealFormat.cs), with an AAD the caller gives (SL3). Uses one
/// <see cref="Aead"/>, so one thread at a time (SL6); the nonce source may be shared.
/// </summary>
internal sealed class RecordSeal(Aead aead, NonceSource nonces)
{
    /// <summary>The length of the sealed form of <paramref name="plaintextLength"/> bytes.</summary>
    public static int SealedLength(int plaintextLength) => checked(plaintextLength + SealFormat.RecordOverhead);

    /// <summary>Where, in a sealed range of <paramref name="sealedLength"/> bytes, the sealed bytes go: the caller may put them there and seal in place.</summary>
    public static Range PayloadRange(int sealedLength) => new(SealFormat.RecordCiphertextOffset, sealedLength - SealFormat.TagSize);

    /// <summary>
    /// Seals <paramref name="plaintext"/> into <paramref name="sealedRange"/>
    /// (<c>SealedLength(plaintext.Length)</c> bytes). <paramref name="plaintext"/> may be exactly
    /// <c>sealedRange[PayloadRange(...)]</c> (sealed in place), or not overlap it at all.
    /// </summary>
    public void Seal(ReadOnlySpan<byte> plaintext, Span<byte> sealedRange, ReadOnlySpan<byte> aad)
    {
        if (sealedRange.Length != SealedLength(plaintext.Length))
        {
            throw new ArgumentException($"A sealed range of {plaintext.Length} bytes is {SealedLength(plaintext.Length)} bytes; got {sealedRange.Length}.", nameof(sealedRange));
        }

        var nonce = sealedRange[..SealFormat.NonceSize];
        nonces.Next(nonce);
        aead.Encrypt(nonce, plaintext, sealedRange[PayloadRange(sealedRange.Length)], sealedRange[^SealFormat.TagSize..], aad);
    }

    /// <summary>
    /// Opens <paramref name="sealedRange"/> into <paramref name="plaintext"/> (its length minus 28;
    /// the payload range of the same buffer is allowed). False, with <paramref name="plaintext"/>
    /// cleared, when it is too short or the tag does not verify with <paramref name="aad"/>.
    /// </summary>
    public bool TryOpen(ReadOnlySpan<byte> sealedRange, Span<byte> plaintext, ReadOnlySpan<byte> aad)
    {
        if (sealedRange.Length < SealFormat.RecordOverhead || plaintext.Length != sealedRange.Length - SealFormat.RecordOverhead)
        {
            plaintext.Clear();
            return false;
        }

        return aead.TryDecrypt(sealedRange[..SealFormat.NonceSize], sealedRange[PayloadRange(sealedRange.Length)],
            sealedRange[^SealFormat.TagSize..], plaintext, aad);
    }

    /// <summary>As <see cref="TryOpen"/>, but a failure is a CorruptionException naming <paramref name="file"/>, <paramref name="offset"/> and <paramref name="what"/> ("record tx 17") (SL7).</summary>
    public void Open(ReadOnlySpan<byte> sealedRange, Span<byte> plaintext, ReadOnlySpan<byte> aad, string file, long offset, string what)
    {
        if (!TryOpen(sealedRange, plaintext, aad))
        {
            throw new CorruptionException(file, offset, sealedRange.Length < SealFormat.RecordOverhead
                ? $"{what}: a sealed range of {sealedRange.Length} bytes is shorter than its nonce and tag (SL7)"
                : $"{what}: the seal does not verify (SL3): the bytes were changed after they were sealed, or sealed elsewhere or under another key");
        }
    }
}
