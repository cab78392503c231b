using Voron.Testing;

namespace Voron.Tests.Core.Backup;

/// <summary>The journal archive's release path (JA1..JA4).</summary>
public sealed class JournalArchiverTests
{
    [Fact]
    public void Another_file_under_an_archived_name_is_never_overwritten_and_the_release_fails_saying_so()
    {
        using var temp = new TempDirectory();
        var archive = temp.Combine("archive");
        Directory.CreateDirectory(archive);
        var foreign = JournalFiles.PathOf(archive, 1);
        var garbage = Encoding.UTF8.GetBytes("not this store's journal file");
        File.WriteAllBytes(foreign, garbage);

        var options = StorageEnvironmentOptions.ForDirectory(temp.Combine("store"));
        options.JournalFileSize = 64 << 10;
        options.BackgroundFlush = false;
        options.JournalArchiveDirectory = archive;
        var env = StorageEnvironment.Open(options);
        try
        {
            for (var i = 0; i < 12; i++)
            {
                using var tx = env.BeginWrite();
                var value = new byte[20_000];
                new Random(i).NextBytes(value); // incompressible: the records fill several journal files
                tx.CreateTree("t").Put(Encoding.UTF8.GetBytes($"k{i}"), value);
                tx.Commit();
            }

            var error = Record.Exception(() => env.FlushToDataFile());
            var text = $"{error} {env.Failure}";
            Assert.Contains("JA4", text);
            Assert.Equal(garbage, File.ReadAllBytes(foreign));
            Assert.True(File.Exists(JournalFiles.PathOf(Path.Combine(temp.Combine("store"), "journal"), 1)), "the journal file was not deleted");
        }
        finally
        {
            try
            {
                env.Dispose();
            }
            catch (Exception e) when (e is IOException or EnvironmentFailedException or InvalidOperationException)
            {
                _ = e; // the store failed on purpose
            }
        }
    }
}
