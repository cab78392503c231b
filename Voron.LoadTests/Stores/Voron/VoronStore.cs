using System.Security.Cryptography;
using Voron.Documents;
using Voron.Sealing;
using Voron.SqliteVfs;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// The Voron adapter: the one place a suite opens a Voron store, in Durable mode (a commit returns
/// after the journal fdatasync covering it; concurrent commits share it), every other option at
/// its default, on the disk of the run (<see cref="SimulatedDisk.VoronOptions"/>: with a simulated
/// delay, every fdatasync of the journal and the data file waits it). The capabilities sit on top:
/// key-value through the environment, documents through <see cref="DocumentStore"/>, SQL through
/// Voron.SqliteVfs (<see cref="RegisterSql"/>). A sealed variant is the same store opened with a
/// key (<see cref="NewSealingKey"/>), every other option alike.
/// </summary>
internal static class VoronStore
{
    public const string Durability = "Durable: a commit returns after the journal fdatasync covering it; concurrent commits share it";

    /// <summary>
    /// What a sealed variant's report says about its sealing: the key, and the AEAD this machine
    /// seals a new store with. What is sealed is Voron.Core's business (Sealing/SealFormat.cs).
    /// </summary>
    public static string Sealing =>
        $"sealed: StorageEnvironmentOptions.SealingKey, a random 256-bit key per store (kept in memory, never written), {SealFormat.Preferred} on this machine; " +
        "what the store seals is Voron.Core's (Sealing/SealFormat.cs says what is sealed where)";

    /// <summary>A fresh random 256-bit key for one sealed store.</summary>
    public static byte[] NewSealingKey() => RandomNumberGenerator.GetBytes(32);

    /// <summary>
    /// A store in <paramref name="directory"/>, on the portable file system when
    /// <paramref name="portable"/>, sealed with <paramref name="sealingKey"/> when one is given;
    /// <paramref name="tune"/> sets what a suite compares beyond durability (the document store's
    /// lazy-flush interval for its key-value floor).
    /// </summary>
    public static StorageEnvironment Open(string directory, SimulatedDisk? disk = null, bool portable = false, Action<StorageEnvironmentOptions>? tune = null,
        byte[]? sealingKey = null) =>
        StorageEnvironment.Open(Options(directory, disk, portable, tune, sealingKey));

    /// <summary>The options <see cref="Open"/> opens a store with (a compaction reopens it with the same).</summary>
    public static StorageEnvironmentOptions Options(string directory, SimulatedDisk? disk = null, bool portable = false, Action<StorageEnvironmentOptions>? tune = null,
        byte[]? sealingKey = null)
    {
        var options = (disk ?? SimulatedDisk.None).VoronOptions(directory, portable);
        options.Durability = DurabilityMode.Durable;
        options.SealingKey = sealingKey;
        tune?.Invoke(options);
        return options;
    }

    /// <summary>
    /// A document store that opens its own environment in <paramref name="directory"/>, with the
    /// document store's defaults for it, and its change feed on or off.
    /// </summary>
    public static DocumentStore OpenDocuments(string directory, bool changeFeed = true)
    {
        var options = new DocumentStoreOptions { Path = directory, Durability = DurabilityMode.Durable };
        options.ChangeFeed.Enabled = changeFeed;
        return DocumentStore.Open(options);
    }

    /// <summary>
    /// <see cref="OpenDocuments"/> sealed with <paramref name="sealingKey"/>: DocumentStoreOptions
    /// has no key, so the environment is opened here with the options DocumentStore.Open gives its
    /// own (the directory, the durability and the lazy-flush interval of the same
    /// <see cref="DocumentStoreOptions"/>, every other option at its default) and the key, and the
    /// store is opened over it. The caller disposes the environment after the store.
    /// </summary>
    public static (DocumentStore Store, StorageEnvironment Environment) OpenSealedDocuments(string directory, byte[] sealingKey, bool changeFeed = true)
    {
        var options = new DocumentStoreOptions { Durability = DurabilityMode.Durable };
        options.ChangeFeed.Enabled = changeFeed;
        var environment = Open(directory, tune: o =>
        {
            o.Durability = options.Durability;
            o.LazyFlushInterval = options.LazyFlushInterval;
        }, sealingKey: sealingKey);
        try
        {
            return (DocumentStore.Open(environment, options), environment);
        }
        catch
        {
            environment.Dispose();
            throw;
        }
    }

    /// <summary>SQLite on this store: Vfs=&lt;a fresh name starting <paramref name="prefix"/>&gt;, its databases kept in the store's transactions.</summary>
    public static VoronSqliteRegistration RegisterSql(StorageEnvironment environment, string prefix) =>
        VoronSqlite.Register(environment, prefix + "-" + Guid.NewGuid().ToString("N")[..8]);
}
