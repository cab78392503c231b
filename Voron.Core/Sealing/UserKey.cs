using System.Security.Cryptography;

namespace Voron.Sealing;

/// <summary>
/// The user's key of one open or one restore, resolved from the public options (a key, or a
/// provider called once with the store's directory): checked, then copied into a pinned buffer
/// that <see cref="Clear"/> zeroes (SL10). The caller's array is never kept or changed.
/// </summary>
internal static class UserKey
{
    /// <summary>
    /// A pinned copy of the key <paramref name="key"/> or <paramref name="provider"/> gives for the
    /// store at <paramref name="directory"/>, or null when neither is set. Throws
    /// <see cref="ArgumentException"/> when both are set, when the key is not 32 bytes or is all
    /// zeros; an exception the provider throws passes through unchanged. Nothing is written.
    /// </summary>
    public static byte[]? Resolve(byte[]? key, Func<string, byte[]>? provider, string directory, string keyName, string providerName)
    {
        if (key is not null && provider is not null)
        {
            throw new ArgumentException(
                $"Both {keyName} and {providerName} are set for the store at '{directory}'. Set one: the key itself, or the callback that returns it.", keyName);
        }

        if (provider is not null)
        {
            var provided = provider(directory) ?? throw new ArgumentException(
                $"{providerName} returned null for the store at '{directory}'. It must return the store's {SealFormat.KeySize}-byte key.", providerName);
            return Copy(provided, directory, providerName);
        }

        return key is null ? null : Copy(key, directory, keyName);
    }

    /// <summary>Zeroes a key <see cref="Resolve"/> returned (SL10).</summary>
    public static void Clear(byte[]? copy)
    {
        if (copy is not null)
        {
            CryptographicOperations.ZeroMemory(copy);
        }
    }

    /// <summary>Throws <see cref="ArgumentException"/> naming <paramref name="name"/> unless <paramref name="key"/> is a usable 256-bit key (SL2).</summary>
    public static void Check(ReadOnlySpan<byte> key, string name, string? directory = null)
    {
        var store = directory is null ? "" : $" for the store at '{directory}'";
        if (key.Length != SealFormat.KeySize)
        {
            throw new ArgumentException(
                $"The encryption key{store} must be exactly {SealFormat.KeySize} bytes (256 bits); {name} gave {key.Length}. Generate one with " +
                $"RandomNumberGenerator.GetBytes({SealFormat.KeySize}) (or `voron key new FILE`) and keep it outside the store.", name);
        }

        if (!key.ContainsAnyExcept((byte)0))
        {
            throw new ArgumentException(
                $"The encryption key{store} given by {name} is all zeros, which is no key. Generate one with RandomNumberGenerator.GetBytes({SealFormat.KeySize}).", name);
        }
    }

    private static byte[] Copy(byte[] key, string directory, string name)
    {
        Check(key, name, directory);
        var copy = GC.AllocateArray<byte>(key.Length, pinned: true); // pinned: the collector never leaves a copy behind
        key.CopyTo(copy, 0);
        return copy;
    }
}
