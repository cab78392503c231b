using LiteDB;

namespace Voron.LoadTests.Stores.LiteDb;

/// <summary>
/// The LiteDB adapter: the one place a suite opens a LiteDB database, as its documentation has a
/// single process do it: <c>Connection=Direct</c> (one exclusive file handle, no shared-mode
/// locking), every other setting at its default, so each commit writes its pages to the log and
/// flushes the file before it returns (durable). On a simulated slower disk the callers sleep the
/// delay after each commit inside the lock LiteDB's writers take one at a time
/// (Measurement/SimulatedDisk.cs says so in every report).
/// </summary>
internal static class LiteDbStore
{
    public const string Durability = "LiteDB 5.0.20 defaults (Connection=direct): a commit returns after its pages are written to the -log file, each followed by an fsync";

    public static LiteDatabase Open(string path) => new(new ConnectionString { Filename = path, Connection = ConnectionType.Direct });
}
