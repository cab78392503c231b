namespace Voron;

/// <summary>Which key problem stopped an open or a restore (<see cref="EncryptionKeyException.Problem"/>).</summary>
public enum EncryptionKeyProblem
{
    /// <summary>The store is encrypted and the given key is not its key (the key check value in its header differs).</summary>
    WrongKey,

    /// <summary>The store is encrypted and no key was given.</summary>
    NoKey,

    /// <summary>A key was given for a store that is not encrypted.</summary>
    KeyForUnencryptedStore,

    /// <summary>The store is encrypted with an algorithm this machine's cryptography library does not offer.</summary>
    AlgorithmNotSupported,
}

/// <summary>
/// The key given to an open or a restore does not fit the store: a wrong key, no key for an
/// encrypted store, a key for a store that is not encrypted, or an algorithm this machine lacks.
/// Nothing was read past the header and nothing was written. An
/// <see cref="InvalidOperationException"/>, not a <see cref="CorruptionException"/>: the store is
/// intact; the caller's configuration does not match it, and fixing the configuration (the
/// <see cref="StorageEnvironmentOptions.EncryptionKey"/> or
/// <see cref="StorageEnvironmentOptions.EncryptionKeyProvider"/>) is what to do.
/// </summary>
/// <example>
/// <code>
/// try
/// {
///     using var store = StorageEnvironment.Open(options);
/// }
/// catch (EncryptionKeyException e) when (e.Problem == EncryptionKeyProblem.WrongKey)
/// {
///     Console.Error.WriteLine($"{e.Path}: not this store's key");
/// }
/// </code>
/// </example>
public sealed class EncryptionKeyException : InvalidOperationException
{
    /// <summary>The key does not fit the store at <paramref name="path"/> for the reason <paramref name="problem"/> names; <paramref name="message"/> says what to do.</summary>
    public EncryptionKeyException(string path, EncryptionKeyProblem problem, string message)
        : base(message)
    {
        Path = path;
        Problem = problem;
    }

    /// <summary>The store's directory (for a restore, the backup's).</summary>
    public string Path { get; }

    /// <summary>Which mismatch it is.</summary>
    public EncryptionKeyProblem Problem { get; }
}
