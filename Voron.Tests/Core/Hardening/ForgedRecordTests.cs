namespace Voron.Tests.Core.Hardening;

/// <summary>
/// A stored value must never be able to pass as a journal record.
/// </summary>
public sealed class ForgedRecordTests
{
    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    /// <summary>
    /// What broke: spare journal files were reused without being cleared, and recovery scans the
    /// rest of the last journal file for intact record headers (rule D4). A ~2 MiB value holding
    /// forged record headers at a stride of 4096 + 8 bytes leaves one of them at a 4096-aligned
    /// offset of a journal file; once that file was recycled, every open threw
    /// CorruptionException ("acknowledged transactions would be lost") — a denial of service by
    /// any client allowed to store a value. Fixed by binding every record to its store and file
    /// (a random store id in the header file and the journal file number are inside the header
    /// checksum, so bytes that do not know the id cannot pass as a header), and by zero-filling a
    /// spare ahead of the records written into it.
    /// </summary>
    [Fact]
    public void Open_succeeds_after_a_value_of_forged_record_headers_sat_in_a_recycled_journal_file()
    {
        using var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs, journalFileSize: 4 << 20);
        var forged = ForgedRecords.Value(seed: 17, units: 512);
        using (var env = StorageEnvironment.Open(options))
        {
            Put(env, "small-0", new byte[10]);
            Put(env, "forged", forged);
            var file = env.Journal.Position.FileNumber;
            var i = 0;
            while (env.Journal.Position.FileNumber == file)
            {
                Put(env, $"filler-{i++}", Noise(i, 100_000));
            }

            // The journal file holding the forged value is released to a spare ...
            env.FlushToDataFile();
            file = env.Journal.Position.FileNumber;
            while (env.Journal.Position.FileNumber == file)
            {
                Put(env, $"filler-{i++}", Noise(i, 100_000));
            }

            // ... which the writer reuses: the log now ends early in the recycled file.
            Put(env, "last", B("value"));
        }

        for (var attempt = 0; attempt < 2; attempt++)
        {
            using var env = StorageEnvironment.Open(StoreFactory.Options(fs, journalFileSize: 4 << 20));
            using var read = env.BeginRead();
            var tree = read.OpenTree("t")!;
            Assert.Equal(forged, tree.Get(B("forged")));
            Assert.Equal(B("value"), tree.Get(B("last")));
        }
    }

    private static void Put(StorageEnvironment env, string key, byte[] value)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(B(key), value);
        tx.Commit();
    }

    private static byte[] Noise(int seed, int length)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }
}
