namespace Voron.Sealing;

/// <summary>The AEAD a sealed store uses (SL6); its byte value is what the header records (0 = not sealed).</summary>
internal enum SealAlgorithm : byte
{
    None = 0,

    /// <summary>AES-256-GCM (System.Security.Cryptography.AesGcm), where AES is accelerated.</summary>
    AesGcm = 1,

    /// <summary>ChaCha20-Poly1305 (System.Security.Cryptography.ChaCha20Poly1305), elsewhere.</summary>
    ChaCha20Poly1305 = 2,
}
