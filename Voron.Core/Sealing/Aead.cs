using System.Security.Cryptography;

namespace Voron.Sealing;

/// <summary>
/// One subkey's AEAD, .NET's AesGcm or ChaCha20Poly1305 behind one shape (SL6). Not thread-safe:
/// one thread at a time uses an instance. Owns the key copy the BCL type keeps; Dispose frees it.
/// </summary>
internal sealed class Aead : IDisposable
{
    private readonly AesGcm? aesGcm;
    private readonly ChaCha20Poly1305? chaCha;

    public Aead(SealAlgorithm algorithm, ReadOnlySpan<byte> key)
    {
        if (key.Length != SealFormat.KeySize)
        {
            throw new ArgumentException($"A subkey is {SealFormat.KeySize} bytes; got {key.Length}.", nameof(key));
        }

        if (!SealFormat.IsSupported(algorithm))
        {
            throw new PlatformNotSupportedException(
                $"This machine cannot seal with {algorithm} (SL6): open the store on a machine whose cryptography library provides it.");
        }

        Algorithm = algorithm;
        if (algorithm == SealAlgorithm.AesGcm)
        {
            aesGcm = new AesGcm(key, SealFormat.TagSize);
        }
        else
        {
            chaCha = new ChaCha20Poly1305(key);
        }
    }

    public SealAlgorithm Algorithm { get; }

    /// <summary>Encrypts <paramref name="plaintext"/> into <paramref name="ciphertext"/> (the same length; the same buffer is allowed) and writes the tag.</summary>
    public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> aad)
    {
        if (aesGcm is not null)
        {
            aesGcm.Encrypt(nonce, plaintext, ciphertext, tag, aad);
        }
        else
        {
            chaCha!.Encrypt(nonce, plaintext, ciphertext, tag, aad);
        }
    }

    /// <summary>
    /// Verifies the tag and decrypts into <paramref name="plaintext"/> (the same length; the same
    /// buffer is allowed). False, with <paramref name="plaintext"/> cleared, when the tag does not verify.
    /// </summary>
    public bool TryDecrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> aad)
    {
        try
        {
            if (aesGcm is not null)
            {
                aesGcm.Decrypt(nonce, ciphertext, tag, plaintext, aad);
            }
            else
            {
                chaCha!.Decrypt(nonce, ciphertext, tag, plaintext, aad);
            }

            return true;
        }
        catch (AuthenticationTagMismatchException)
        {
            plaintext.Clear();
            return false;
        }
    }

    public void Dispose()
    {
        aesGcm?.Dispose();
        chaCha?.Dispose();
    }
}
