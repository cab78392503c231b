using System.Globalization;
using System.Text;
using Voron.ObjectStorage;

namespace Voron.Testing.Processes;

/// <summary>
/// <c>ship-child &lt;dir&gt; &lt;archive&gt; &lt;seed&gt; &lt;run&gt; dir &lt;remote&gt;</c> or
/// <c>... s3 &lt;endpoint&gt; &lt;bucket&gt; &lt;prefix&gt;</c>: the process Voron.Tests' ShippingKillTests
/// kills with SIGKILL while it ships. It opens (and recovers) the store in <c>dir</c>, which
/// archives its journal into <c>archive</c> and ships it to the destination with a short
/// ArchiveMaxDelay (so kills land in leaving a file, the flush that releases it, the archive copy
/// and the upload), prints <c>READY &lt;last committed tx&gt;</c>, then commits explicit
/// transactions until killed (or for 10 seconds), printing <c>ACK &lt;key&gt; &lt;value hash&gt; &lt;tx&gt;</c>
/// after each acknowledged one. Keys are unique and never overwritten.
/// </summary>
internal static class ShipCrashChild
{
    internal const string Command = "ship-child";

    private static readonly TimeSpan Lifetime = TimeSpan.FromSeconds(10);

    /// <summary>The options the child and the test's checks open the store with.</summary>
    internal static StorageEnvironmentOptions Options(string directory, string archive, IArchiveDestination destination, int seed, int run)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.JournalFileSize = 256 * 1024;
        options.FlushInterval = TimeSpan.FromMilliseconds(50);
        options.JournalArchiveDirectory = archive;
        options.ArchiveDestination = destination;
        options.ArchiveMaxDelay = TimeSpan.FromMilliseconds(new Random(seed ^ run).Next(0, 4) * 20); // 0 to 60 ms: a release every few commits
        options.ArchiveShippingInterval = TimeSpan.FromMilliseconds(200);
        return options;
    }

    internal static int Run(string directory, string archive, int seed, int run, IArchiveDestination destination, TextWriter output)
    {
        using var environment = StorageEnvironment.Open(Options(directory, archive, destination, seed, run));
        output.WriteLine(FormattableString.Invariant($"READY {environment.LastCommittedTransactionId}"));
        output.Flush();
        var stopwatch = System.Diagnostics.Stopwatch.StartNew();
        for (var i = 0; stopwatch.Elapsed < Lifetime; i++)
        {
            var key = CrashChild.Key(run, "s", i);
            var value = CrashChild.Value(seed, key);
            long id;
            using (var transaction = environment.BeginWrite())
            {
                transaction.CreateTree("ship").Put(Encoding.UTF8.GetBytes(key), value);
                id = transaction.Id;
                transaction.Commit();
            }

            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"ACK {key} {CrashChild.Hash(value)} {id}"));
            output.Flush();
        }

        return 0;
    }
}
