using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace Voron.Testing.Processes;

/// <summary>
/// <c>crash-child &lt;dir&gt; &lt;seed&gt; &lt;run&gt; [lazy|sql|sql-docs|portable|portable-lazy]</c>: the process that Voron.Tests' ProcessKillTests (and RealFileSystemTests' lock test)
/// kills with SIGKILL. Hidden: not an experiment, not listed. It opens (and so recovers) the
/// durable store in <c>dir</c>, prints <c>READY &lt;last committed tx&gt;</c>, then writes until
/// killed (or for 10 seconds) — explicit transactions from one task and merged operations
/// (ExecuteAsync) from three — printing <c>ACK &lt;key&gt; &lt;value hash&gt;</c> and flushing stdout
/// after every acknowledged commit, so that every line the parent reads names a commit that must
/// survive. Keys are unique (run number, writer, sequence), never overwritten or deleted. Small
/// journal files and an eager background flush make kills land in rotation, flushing and
/// journal recycling, not only in appends. With <c>lazy</c> the store runs in lazy durability
/// mode, whose acknowledgements must survive a process kill too (the OS keeps the writes).
/// With <c>portable</c> (or <c>portable-lazy</c>) the store runs on the portable file system
/// (<see cref="StorageEnvironmentOptions.UsePortableFileSystem"/>). With <c>sql</c> it writes SQL through the SQLite VFS instead (<see cref="SqlCrashChild"/>); with <c>sql-docs</c>, cross-door transactions of a SQL table and documents (<see cref="DocsCrashChild"/>).
/// </summary>
internal static class CrashChild
{
    internal const string Command = "crash-child";

    private static readonly TimeSpan Lifetime = TimeSpan.FromSeconds(10);

    /// <summary>The environment variable naming a key file: when set, the store is encrypted with its key (the sealed kill loop).</summary>
    internal const string KeyFileVariable = "VORON_CRASH_CHILD_KEY_FILE";

    /// <summary>The mode argument that selects lazy durability.</summary>
    internal const string Lazy = "lazy";

    /// <summary>The mode arguments that run the store on the portable file system (durable, lazy).</summary>
    internal const string Portable = "portable";

    /// <inheritdoc cref="Portable"/>
    internal const string PortableLazy = "portable-lazy";

    /// <summary>The mode argument that writes SQL through the SQLite VFS instead (<see cref="SqlCrashChild"/>).</summary>
    internal const string Sql = "sql";

    /// <summary>The mode argument that commits cross-door SQL transactions (a table and documents) instead (<see cref="DocsCrashChild"/>).</summary>
    internal const string SqlDocs = "sql-docs";

    /// <summary>Runs the child until killed or its lifetime ends; Program.cs parses the arguments.</summary>
    internal static async Task<int> RunAsync(string directory, int seed, int run, bool lazy, TextWriter output, bool portable = false)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.UsePortableFileSystem = portable;
        options.JournalFileSize = 256 * 1024;
        options.FlushThresholdBytes = 256 * 1024;
        options.FlushInterval = TimeSpan.FromMilliseconds(20);
        options.MaxBatchOperations = 8;
        if (Environment.GetEnvironmentVariable(KeyFileVariable) is { Length: > 0 } keyFile)
        {
            options.EncryptionKey = Sealing.EncryptionKeyFile.Read(keyFile);
        }

        if (lazy)
        {
            options.Durability = DurabilityMode.Lazy;
        }

        using var environment = StorageEnvironment.Open(options);
        var gate = new object();
        void Emit(string line)
        {
            lock (gate)
            {
                output.WriteLine(line);
                output.Flush();
            }
        }

        Emit(FormattableString.Invariant($"READY {environment.LastCommittedTransactionId}"));
        var stopwatch = Stopwatch.StartNew();
        var explicitWriter = Task.Run(() =>
        {
            for (var i = 0; stopwatch.Elapsed < Lifetime; i++)
            {
                var count = i % 5 == 0 ? 3 : 1;
                var written = new List<(string Key, byte[] Value)>();
                using (var transaction = environment.BeginWrite())
                {
                    var tree = transaction.CreateTree("kill");
                    for (var k = 0; k < count; k++)
                    {
                        var key = Key(run, "e", (i * 3) + k);
                        var value = Value(seed, key);
                        tree.Put(Encoding.UTF8.GetBytes(key), value);
                        written.Add((key, value));
                    }

                    transaction.Commit();
                }

                foreach (var (key, value) in written)
                {
                    Emit($"ACK {key} {Hash(value)}");
                }
            }
        });
        var mergedWriters = Enumerable.Range(0, 3).Select(writer => Task.Run(async () =>
        {
            for (var i = 0; stopwatch.Elapsed < Lifetime; i++)
            {
                var key = Key(run, $"m{writer}", i);
                var value = Value(seed, key);
                await environment.ExecuteAsync(transaction => transaction.CreateTree("kill").Put(Encoding.UTF8.GetBytes(key), value)).ConfigureAwait(false);
                Emit($"ACK {key} {Hash(value)}");
            }
        }));
        await Task.WhenAll(mergedWriters.Append(explicitWriter)).ConfigureAwait(false);
        return 0;
    }

    internal static string Key(int run, string writer, int sequence) =>
        string.Create(CultureInfo.InvariantCulture, $"r{run:D5}/{writer}/{sequence:D7}");

    /// <summary>The value of a key: its length and bytes follow from the seed and the key (mostly small, some on overflow pages).</summary>
    internal static byte[] Value(int seed, string key)
    {
        var random = new Random(seed ^ (int)(Fnv1a(Encoding.UTF8.GetBytes(key)) & int.MaxValue));
        var length = random.Next(100) switch
        {
            < 70 => random.Next(10, 200),
            < 95 => random.Next(200, 4000),
            _ => random.Next(4000, 40_000),
        };
        var value = new byte[length];
        random.NextBytes(value);
        return value;
    }

    /// <summary>16 hex digits: FNV-1a 64 of the value.</summary>
    internal static string Hash(ReadOnlySpan<byte> value) => Fnv1a(value).ToString("X16", CultureInfo.InvariantCulture);

    private static ulong Fnv1a(ReadOnlySpan<byte> bytes)
    {
        var hash = 14695981039346656037UL;
        foreach (var b in bytes)
        {
            hash = (hash ^ b) * 1099511628211UL;
        }

        return hash;
    }
}
