using Voron.LoadTests.Data;
using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Sql;
using Voron.LoadTests.Experiments;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// <c>syscalls-child &lt;mode&gt; &lt;dir&gt; &lt;commits&gt;</c>: the process the <c>syscalls</c> experiment runs
/// under <c>strace -c -f</c>. Hidden: not an experiment, not listed. It opens a store of the mode
/// (<see cref="Modes"/>) in <c>dir</c>, makes <see cref="WarmUpCommits"/> durable commits of one
/// 1 KiB value each, then <c>commits</c> more, then settles the store (Voron's data-file flush,
/// SQLite's checkpoint) and closes it. Run with 0 commits and with N, the difference of the two
/// runs' system-call counts divided by N is what one commit costs, the open, the warm-up, the
/// settle and the runtime's own start-up cancelling out.
/// </summary>
internal static class SyscallsChild
{
    internal const string Command = "syscalls-child";

    /// <summary>voron: an explicit write transaction per commit; voron-merged: ExecuteAsync from one caller (a batch of one); the peers: one transaction per commit.</summary>
    internal static readonly string[] Modes = ["voron", "voron-merged", KvEngineCatalog.Sqlite, KvEngineCatalog.Lmdb];

    /// <summary>
    /// Modes the experiment does not run, for targeted counts by hand (SQL from one connection):
    /// single-row INSERT commits of a 1 KiB blob from one connection, on
    /// <c>Vfs=voron</c> (<c>sql-voron</c>) and on stock SQLite in WAL mode (<c>sql-wal</c>), as the
    /// <c>sql</c> experiment's engines open them.
    /// </summary>
    internal static readonly string[] SqlModes = ["sql-" + SqlEngines.Voron, "sql-" + SqlEngines.SqliteWal];

    internal const int WarmUpCommits = 100;

    internal static async Task<int> RunAsync(string mode, string directory, int commits, TextWriter output)
    {
        Directory.CreateDirectory(directory);
        var value = MergeExperiment.Value(0);
        var total = WarmUpCommits + commits;
        if (SqlModes.Contains(mode))
        {
            using var engine = SqlEngines.Open(mode["sql-".Length..], directory);
            using var connection = engine.Connect(0);
            using (var create = connection.CreateCommand())
            {
                create.CommandText = "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v BLOB)";
                create.ExecuteNonQuery();
            }

            using var insert = connection.CreateCommand();
            insert.CommandText = "INSERT INTO t (id, v) VALUES ($id, $v)";
            var id = insert.Parameters.Add("$id", Microsoft.Data.Sqlite.SqliteType.Integer);
            insert.Parameters.AddWithValue("$v", value);
            for (var i = 0; i < total; i++)
            {
                id.Value = i;
                insert.ExecuteNonQuery();
            }

            engine.Settle();
        }
        else if (mode.StartsWith("voron", StringComparison.Ordinal))
        {
            using var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
            for (var i = 0; i < total; i++)
            {
                var key = KeyPattern.Sequential.Key(0, i);
                if (mode == "voron-merged")
                {
                    await env.ExecuteAsync(tx => tx.CreateTree("kv").Put(key, value)).ConfigureAwait(false);
                }
                else
                {
                    using var tx = env.BeginWrite();
                    tx.CreateTree("kv").Put(key, value);
                    tx.Commit();
                }
            }

            env.FlushToDataFile();
        }
        else
        {
            using var engine = KvEngineCatalog.All.Single(k => k.Name == mode).OpenOnDisk(directory);
            for (var i = 0; i < total; i++)
            {
                engine.WriteBatch([KvWrite.Put(KeyPattern.Sequential.Key(0, i), value)]);
            }

            engine.Settle();
        }

        output.WriteLine($"DONE {mode} {commits}");
        return 0;
    }
}
