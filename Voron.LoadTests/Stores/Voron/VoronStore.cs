using Voron.Documents;
using Voron.SqliteVfs;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// The Voron adapter: the one place a suite opens a Voron store, in Durable mode (a commit returns
/// after the journal fdatasync covering it; concurrent commits share it), every other option at
/// its default, on the disk of the run (<see cref="SimulatedDisk.VoronOptions"/>: with a simulated
/// delay, every fdatasync of the journal and the data file waits it). The capabilities sit on top:
/// key-value through the environment, documents through <see cref="DocumentStore"/>, SQL through
/// Voron.SqliteVfs (<see cref="RegisterSql"/>).
/// </summary>
internal static class VoronStore
{
    public const string Durability = "Durable: a commit returns after the journal fdatasync covering it; concurrent commits share it";

    /// <summary>
    /// A store in <paramref name="directory"/>, on the portable file system when
    /// <paramref name="portable"/>; <paramref name="tune"/> sets what a suite compares beyond
    /// durability (the document store's lazy-flush interval for its key-value floor).
    /// </summary>
    public static StorageEnvironment Open(string directory, SimulatedDisk? disk = null, bool portable = false, Action<StorageEnvironmentOptions>? tune = null)
    {
        var options = (disk ?? SimulatedDisk.None).VoronOptions(directory, portable);
        options.Durability = DurabilityMode.Durable;
        tune?.Invoke(options);
        return StorageEnvironment.Open(options);
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

    /// <summary>SQLite on this store: Vfs=&lt;a fresh name starting <paramref name="prefix"/>&gt;, its databases kept in the store's transactions.</summary>
    public static VoronSqliteRegistration RegisterSql(StorageEnvironment environment, string prefix) =>
        VoronSqlite.Register(environment, prefix + "-" + Guid.NewGuid().ToString("N")[..8]);
}
