using System.Text;
using Dapper;
using Microsoft.Data.Sqlite;
using Voron.SqliteVfs;
using Voron.Testing;

namespace Voron.Tests.Core.Sealing;

/// <summary>
/// Page files of a sealed store (version 2, PF5, PF6): blocks sealed at each write with the nonce
/// and tag in the map entry; a model of random writes, truncations, crashes and flushes reads back
/// exactly; SQLite through the VFS leaves no plaintext in any file; a changed block is caught.
/// </summary>
public sealed class SealedPageFileTests(ITestOutputHelper output)
{
    private static readonly byte[] Key = SealingFixtures.Key(31);

    [Fact]
    public void A_sealed_page_file_equals_its_model_across_writes_truncations_crashes_flushes_and_spills()
    {
        var seed = TestSeed.Next(output, nameof(A_sealed_page_file_equals_its_model_across_writes_truncations_crashes_flushes_and_spills));
        var random = new Random(seed);
        using var directory = new TempDirectory();
        var model = new List<byte>();
        var env = Open(directory.Path);
        try
        {
            for (var t = 0; t < 80; t++)
            {
                using (var tx = env.BeginWrite())
                {
                    var file = tx.OpenPageFile("db") ?? tx.CreatePageFile("db");
                    for (var i = random.Next(1, 6); i > 0; i--)
                    {
                        if (random.Next(10) == 0)
                        {
                            var length = random.Next(0, model.Count + 1);
                            file.SetLength(length);
                            Resize(model, length);
                        }
                        else
                        {
                            var offset = random.Next(0, model.Count + 3 * PageFile.BlockSize);
                            var bytes = new byte[random.Next(4) == 0 ? PageFile.BlockSize : random.Next(1, 3 * PageFile.BlockSize)];
                            random.NextBytes(bytes);
                            if (random.Next(2) == 0)
                            {
                                offset = offset / PageFile.BlockSize * PageFile.BlockSize; // whole blocks, as SQLite writes
                            }

                            file.Write(offset, bytes);
                            Resize(model, Math.Max(model.Count, offset + bytes.Length));
                            for (var b = 0; b < bytes.Length; b++)
                            {
                                model[offset + b] = bytes[b];
                            }
                        }

                        AssertEqual(file, model, $"seed {seed}, transaction {t}: the writer reads its own writes");
                    }

                    tx.Commit();
                }

                using (var reader = env.BeginRead())
                {
                    AssertEqual(reader.OpenPageFile("db")!, model, $"seed {seed}, after transaction {t}");
                }

                switch (random.Next(8))
                {
                    case 0:
                        env.FlushToDataFile();
                        break;
                    case 1:
                        env.CloseWithoutFlush();
                        env = Open(directory.Path);
                        break;
                }
            }

            env.FlushToDataFile();
            env.CheckIntegrity();
            using var read = env.BeginRead();
            AssertEqual(read.OpenPageFile("db")!, model, $"seed {seed}, at the end");
        }
        finally
        {
            env.Dispose();
        }
    }

    [Fact]
    public void SQL_through_the_VFS_on_a_sealed_store_leaves_no_plaintext_in_any_file_and_reads_back_after_a_crash()
    {
        var markers = Enumerable.Range(0, 30).Select(i => $"SQL-MARKER-{i:D2}-0x5EA1").ToArray();
        using var sealedDirectory = new TempDirectory();
        using var plainDirectory = new TempDirectory();
        foreach (var (path, key) in new[] { (sealedDirectory.Path, Key), (plainDirectory.Path, (byte[]?)null) })
        {
            var env = Open(path, key);
            using (var sql = VoronSqlite.Register(env, "voron-sealed-" + Guid.NewGuid().ToString("N")[..12]))
            {
                using var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = "app.db", Vfs = sql.VfsName, Pooling = false }.ToString());
                connection.Open();
                connection.Execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)");
                connection.Execute("CREATE INDEX notes_body ON notes (body)");
                foreach (var marker in markers)
                {
                    connection.Execute("INSERT INTO notes (body) VALUES (@body)", new { body = marker + new string('x', 300) });
                }

                Assert.Equal(markers.Length, connection.ExecuteScalar<long>("SELECT count(*) FROM notes WHERE body LIKE 'SQL-MARKER-%'"));
            }

            env.FlushToDataFile();
            env.CloseWithoutFlush();
        }

        var plainFound = Scan(plainDirectory.Path, markers);
        Assert.Contains(plainFound, f => f.Contains("voron.data", StringComparison.Ordinal)); // the control: plaintext is found where it is
        Assert.Empty(Scan(sealedDirectory.Path, markers));

        using var reopened = Open(sealedDirectory.Path, Key);
        using var again = VoronSqlite.Register(reopened, "voron-sealed-" + Guid.NewGuid().ToString("N")[..12]);
        using var check = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = "app.db", Vfs = again.VfsName, Pooling = false }.ToString());
        check.Open();
        Assert.Equal(markers.Select(m => m + new string('x', 300)), check.Query<string>("SELECT body FROM notes ORDER BY id"));
        Assert.Equal("ok", check.ExecuteScalar<string>("PRAGMA integrity_check"));
    }

    [Fact]
    public void A_changed_byte_in_a_sealed_block_is_CorruptionException_naming_the_data_file_and_page()
    {
        // Without the key nobody can make the entry's checksum (in a sealed tree page) fit changed
        // bytes; PF3 catches them, before the seal is even tried (SealedPagesTests and PageSealTests
        // cover a checksum that holds over a seal that does not).
        using var directory = new TempDirectory();
        var block = new byte[PageFile.BlockSize];
        new Random(5).NextBytes(block);
        using (var env = Open(directory.Path))
        {
            using var tx = env.BeginWrite();
            tx.CreatePageFile("db").Write(0, block);
            tx.Commit();
            env.FlushToDataFile();
        }

        // The block is the data-file page whose bytes are neither a page header nor zeros: find it by the map, through a read.
        long page;
        using (var env = Open(directory.Path))
        {
            using var read = env.BeginRead();
            var tree = read.Low.OpenTree(Voron.PageFiles.PageFileFormat.TreeName("db"))!;
            Span<byte> key = stackalloc byte[8];
            Voron.PageFiles.PageFileFormat.WriteBlockKey(key, 0);
            Assert.True(tree.TryGet(key, out var entry));
            page = BitConverter.ToInt64(entry[..8]);
            Assert.Equal(Voron.PageFiles.PageFileFormat.SealedEntrySize, entry.Length);
        }

        var dataFile = Path.Combine(directory.Path, "voron.data");
        var data = File.ReadAllBytes(dataFile);
        Assert.False(data.AsSpan((int)(page * PageFile.BlockSize), PageFile.BlockSize).SequenceEqual(block)); // stored sealed
        data[(page * PageFile.BlockSize) + 1000] ^= 0x04;
        File.WriteAllBytes(dataFile, data);

        using var reopened = Open(directory.Path);

        var error = Assert.Throws<CorruptionException>(() =>
        {
            using var read = reopened.BeginRead();
            read.OpenPageFile("db")!.Read(0, new byte[PageFile.BlockSize]);
        });
        Assert.Equal(dataFile, error.File);
        Assert.Equal(page * PageFile.BlockSize, error.Offset);
        Assert.Contains($"page {page}", error.Message, StringComparison.Ordinal);
        Assert.Contains("PF3", error.Message, StringComparison.Ordinal);
    }

    private static StorageEnvironment Open(string directory) => Open(directory, Key);

    private static StorageEnvironment Open(string directory, byte[]? key)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.BackgroundFlush = false;
        options.JournalFileSize = 256 * 1024;
        options.JournalCompression = false;
        options.MaxPageVersionMemory = 4 * Constants.PageSize; // versions spill to the (sealed) scratch file
        options.SealingKey = key;
        return StorageEnvironment.Open(options);
    }

    private static void Resize(List<byte> model, int length)
    {
        if (length < model.Count)
        {
            model.RemoveRange(length, model.Count - length);
        }
        else
        {
            model.AddRange(new byte[length - model.Count]);
        }
    }

    private static void AssertEqual(PageFile file, List<byte> model, string where)
    {
        Assert.True(file.Length == model.Count, $"{where}: length {file.Length}, the model has {model.Count}");
        var bytes = new byte[model.Count];
        file.Read(0, bytes);
        Assert.True(bytes.AsSpan().SequenceEqual(model.ToArray()), $"{where}: the bytes differ");
    }

    private static List<string> Scan(string directory, string[] markers) =>
        Directory.GetFiles(directory, "*", SearchOption.AllDirectories)
            .SelectMany(f => markers.Where(m => File.ReadAllBytes(f).AsSpan().IndexOf(Encoding.UTF8.GetBytes(m)) >= 0).Select(m => $"{m} in {f}"))
            .ToList();
}
