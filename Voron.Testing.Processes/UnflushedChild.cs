using System.Globalization;
using System.Text;

namespace Voron.Testing.Processes;

/// <summary>
/// <c>unflushed &lt;dir&gt;</c>: makes a store whose last transactions are only in the journal, as
/// a crash leaves it, for Voron.Tool.Tests' damage tests (which cannot reach the engine's
/// internals): 40 keys and a 12,000-byte value flushed to the data file, then 30 transactions of
/// 3,000 incompressible bytes each (tree <c>t</c>, keys <c>j0000</c>…) in 64 KiB journal files,
/// and a close without a flush. For each journal record it prints
/// <c>RECORD &lt;journal file path&gt; &lt;offset&gt; &lt;length&gt;</c>, in commit order.
/// </summary>
internal static class UnflushedChild
{
    internal const string Command = "unflushed";

    /// <summary>The transactions only in the journal.</summary>
    internal const int JournalTransactions = 30;

    internal static int Run(string directory, TextWriter output)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.JournalFileSize = 64 * 1024;
        options.BackgroundFlush = false;
        var environment = StorageEnvironment.Open(options);
        using (var write = environment.BeginWrite())
        {
            var tree = write.CreateTree("t");
            for (var i = 0; i < 40; i++)
            {
                tree.Put(Encoding.UTF8.GetBytes($"key{i:D3}"), Encoding.UTF8.GetBytes($"value {i}"));
            }

            tree.Put("large"u8, new byte[12_000]);
            write.Commit();
        }

        environment.FlushToDataFile();
        var random = new Random(26);
        var journalDirectory = Path.Combine(directory, "journal");
        for (var i = 0; i < JournalTransactions; i++)
        {
            var before = environment.Journal.Position;
            using (var write = environment.BeginWrite())
            {
                var value = new byte[3000];
                random.NextBytes(value);
                write.CreateTree("t").Put(Encoding.UTF8.GetBytes($"j{i:D4}"), value);
                write.Commit();
            }

            var end = environment.Journal.Position;
            var start = end.FileNumber == before.FileNumber ? before.Offset : 0; // a rotation starts the record at 0
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"RECORD {Journal.JournalFiles.PathOf(journalDirectory, end.FileNumber)} {start} {end.Offset - start}"));
        }

        environment.CloseWithoutFlush();
        output.Flush();
        return 0;
    }
}
