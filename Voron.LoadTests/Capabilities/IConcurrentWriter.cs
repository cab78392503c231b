namespace Voron.LoadTests.Capabilities;

/// <summary>
/// A store that many callers write to at once, each write durable when its task completes: Voron
/// through its transaction merger, or a peer through an
/// application-side FIFO queue (<see cref="BatchedPeerWriter"/>). The closed- and open-loop
/// harnesses drive every mode through this, so they all do the same work the same way.
/// </summary>
internal interface IConcurrentWriter : IDisposable
{
    /// <summary>The mode's name in report rows.</summary>
    string Mode { get; }

    /// <summary>The store's directory.</summary>
    string Directory { get; }

    /// <summary>Puts one entry in its own operation; completes when it is durable.</summary>
    Task PutAsync(byte[] key, byte[] value);

    /// <summary>Finishes the work earlier writes caused (<see cref="IKvEngine.Settle"/>); no write may be in flight.</summary>
    void Settle();

    /// <summary>Durable flushes so far: Voron's journal writes, the peers' commits.</summary>
    long Flushes { get; }

    /// <summary>The Voron store written to, whose journal records the experiment times (<see cref="JournalWriteListener"/>); null for the peers.</summary>
    StorageEnvironment? VoronEnvironment => null;
}
