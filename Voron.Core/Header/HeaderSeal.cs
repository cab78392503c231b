using Voron.Sealing;

namespace Voron.Header;

/// <summary>
/// The seal fields of a sealed store's header (format version 4; FORMAT block in HeaderFile.cs):
/// the AEAD, the salt of the key derivation and the key check value (SL2, SL5, SL6). Plaintext by
/// design: none of them reveals the key or the data.
/// </summary>
internal sealed record HeaderSeal(SealAlgorithm Algorithm, byte[] Salt, byte[] CheckValue);
