namespace Voron.Sealing;

/// <summary>Which key problem stopped an open (SL5).</summary>
internal enum SealingKeyProblem
{
    /// <summary>The store is sealed and the given key is not its key (the check value differs).</summary>
    WrongKey,

    /// <summary>The store is sealed and no key was given.</summary>
    NoKey,

    /// <summary>A key was given for a store that is not sealed.</summary>
    KeyForUnsealedStore,

    /// <summary>The store seals with an AEAD this machine does not offer (SL6).</summary>
    AlgorithmNotSupported,
}

/// <summary>
/// The key given to an open does not fit the store: a wrong key, no key for a sealed store, a key
/// for a store that is not sealed, or an AEAD this machine lacks. Nothing was read past the header
/// and nothing was written. An <see cref="InvalidOperationException"/>, not a
/// <see cref="CorruptionException"/> or a CryptographicException: the store is intact and the
/// cryptography worked; the caller's configuration does not match the store, and fixing the
/// configuration is what to do.
/// </summary>
internal sealed class SealingKeyException : InvalidOperationException
{
    public SealingKeyException(string path, SealingKeyProblem problem, string message)
        : base(message)
    {
        Path = path;
        Problem = problem;
    }

    /// <summary>The store's directory.</summary>
    public string Path { get; }

    public SealingKeyProblem Problem { get; }
}
