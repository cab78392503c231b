using System.Buffers.Binary;
using Voron.Journal;
using Voron.Paging;
using Voron.Platform;
using Voron.Platform.Memory;
using Voron.Testing.Crash;
using Voron.Testing.Journal;

namespace Voron.Testing.Faults;

/// <summary>
/// The store OnDiskFuzzTests mutates: several trees with branch pages, overflow values, deleted
/// keys and a dropped tree (free-space pages with content), two flushes to the data file, then
/// commits that exist only in the journal (diffs against previous versions, compressed records).
/// </summary>
internal sealed class FuzzStore
{
    private const string Directory = "/store";
    private const long MaxDataFileSize = 64L << 20;

    private FuzzStore(Dictionary<string, byte[]> files, List<JournalPosition> records, long writtenPages)
    {
        Files = files;
        Records = records;
        WrittenPages = writtenPages;
    }

    public Dictionary<string, byte[]> Files { get; }

    /// <summary>Where each record recovery reads starts (those after the header's synced point).</summary>
    public List<JournalPosition> Records { get; }

    /// <summary>Pages of the data file that hold something.</summary>
    public long WrittenPages { get; }

    public static FuzzStore Build()
    {
        using var fs = new InMemoryFileSystem(MaxDataFileSize);
        var env = StorageEnvironment.Open(Options(fs, JournalTailRecovery.DiscardTornWrite));
        var random = new Random(1717);
        void Commit(Action<WriteTransaction> change)
        {
            using var tx = env.BeginWrite();
            change(tx);
            tx.Commit();
        }

        for (var batch = 0; batch < 4; batch++)
        {
            Commit(tx =>
            {
                var tree = tx.CreateTree("many");
                for (var i = 0; i < 150; i++)
                {
                    tree.Put(Key(batch, i), Value(random, 40 + random.Next(120)));
                }
            });
        }

        Commit(tx => tx.CreateTree("big").Put("overflow"u8, Value(random, 30_000)));
        Commit(tx => tx.CreatePageFile("sql").Write(0, Value(random, (3 * Constants.PageSize) + 100))); // a SQLite database's pages (PF rules)
        Commit(tx => tx.CreateTree("doomed").Put("x"u8, Value(random, 5000)));
        env.FlushToDataFile();
        Commit(tx =>
        {
            var tree = tx.CreateTree("many");
            for (var i = 0; i < 150; i += 2)
            {
                tree.Delete(Key(1, i));
            }
        });
        Commit(tx => tx.DeleteTree("doomed"));
        env.FlushToDataFile();

        var records = new List<JournalPosition>();
        for (var i = 0; i < 6; i++)
        {
            records.Add(env.Journal.Position);
            Commit(tx =>
            {
                tx.CreateTree("many").Put(Key(0, i), Value(random, 60));
                tx.CreateTree("big").Put("overflow"u8, i % 2 == 0 ? new byte[20_000] : Value(random, 20_000));
                tx.CreateTree("small").Put(Key(9, i), Value(random, 10));
                tx.CreatePageFile("sql").Write(i * 3000, Value(random, 200));
            });
        }

        env.CloseWithoutFlush();
        var files = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        foreach (var path in fs.ListFiles(Directory, "*").Concat(fs.ListFiles(Directory + "/journal", "*")))
        {
            using var file = fs.Open(path, FileOpenMode.OpenExisting);
            var bytes = new byte[file.Length];
            file.Read(0, bytes);
            files[path] = bytes;
        }

        var data = files[Directory + "/voron.data"];
        var written = (data.AsSpan().LastIndexOfAnyExcept((byte)0) / Constants.PageSize) + 1;
        // A record that rotated starts at offset 0 of the next file.
        records = [.. records.Select(p => files.ContainsKey(JournalFiles.PathOf(Directory + "/journal", p.FileNumber)) && Starts(files, p) ? p : new JournalPosition(p.FileNumber + 1, 0))];
        return new FuzzStore(files, records, written);
    }

    /// <summary>Deletes every file of <paramref name="directories"/> on dispose: an in-memory file's memory is freed only when it is deleted.</summary>
    public static IDisposable ReleaseOnDispose(InMemoryFileSystem fs, params string[] directories) => new Releaser(fs, directories);

    private sealed class Releaser(InMemoryFileSystem fs, string[] directories) : IDisposable
    {
        public void Dispose()
        {
            foreach (var path in directories.SelectMany(d => fs.ListFiles(d, "*")))
            {
                fs.DeleteFile(path);
            }
        }
    }

    public InMemoryFileSystem Copy()
    {
        var fs = new InMemoryFileSystem(MaxDataFileSize);
        foreach (var (path, bytes) in Files)
        {
            using var file = fs.Open(path, FileOpenMode.CreateNew);
            file.Write(0, bytes);
        }

        return fs;
    }

    /// <summary>Mutates one written page of the data file, its checksum re-stamped (over the overflow run it now claims, when that fits) three times in four.</summary>
    public void MutatePage(InMemoryFileSystem fs, Random random)
    {
        using var file = fs.Open(Directory + "/voron.data", FileOpenMode.OpenExisting);
        var number = random.NextInt64(1, WrittenPages);
        var page = new byte[Constants.PageSize];
        file.Read(number * Constants.PageSize, page);
        Mutator.Mutate(page, random, 0, random.Next(2) == 0 ? PageHeader.Size : Constants.PageSize);
        file.Write(number * Constants.PageSize, page);
        if (random.Next(4) == 0)
        {
            return;
        }

        var run = page;
        if (PageHeader.GetFlags(page) == PageFlags.Overflow && PageHeader.GetOverflowSize(page) is var size and >= 0 and <= 1 << 20)
        {
            var pages = (PageHeader.Size + size + Constants.PageSize - 1) / Constants.PageSize;
            if ((number + pages) * Constants.PageSize <= file.Length)
            {
                run = new byte[pages * Constants.PageSize];
                file.Read(number * Constants.PageSize, run);
            }
        }

        PageHeader.StampChecksum(run);
        file.Write(number * Constants.PageSize, run);
    }

    /// <summary>Mutates the header or the payload of one record recovery reads, re-stamped with the store's id three times in four.</summary>
    public void MutateRecord(InMemoryFileSystem fs, Random random)
    {
        var start = Records[random.Next(Records.Count)];
        if (random.Next(4) == 0)
        {
            using var file = fs.Open(JournalFiles.PathOf(Directory + "/journal", start.FileNumber), FileOpenMode.OpenExisting);
            var bytes = new byte[JournalRecord.Alignment];
            file.Read(start.Offset, bytes);
            Mutator.Mutate(bytes, random);
            file.Write(start.Offset, bytes);
            return;
        }

        StoredRecords.Edit(fs, start, body =>
        {
            var payload = (int)Math.Min(body.Length - JournalRecord.HeaderSize, BinaryPrimitives.ReadInt64LittleEndian(body[JournalRecord.StoredPayloadSizeOffset..]));
            if (random.Next(2) == 0 || payload <= 0)
            {
                Mutator.Mutate(body, random, JournalRecord.FlagsOffset, JournalRecord.HeaderSize - JournalRecord.FlagsOffset);
            }
            else
            {
                Mutator.Mutate(body, random, JournalRecord.HeaderSize, payload);
            }
        }, Directory);
    }

    /// <summary>Opens the store, reads every key and value of every tree, and runs the integrity check.</summary>
    public static void OpenAndReadEverything(InMemoryFileSystem fs, JournalTailRecovery mode)
    {
        using var env = StorageEnvironment.Open(Options(fs, mode));
        using (var read = env.BeginRead())
        {
            foreach (var name in read.GetTreeNames())
            {
                var tree = read.OpenTree(name);
                if (tree is null)
                {
                    continue;
                }

                _ = tree.Count;
                var iterator = tree.Iterate();
                for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
                {
                    var key = iterator.Key.ToArray();
                    _ = iterator.Value.Length;
                    _ = tree.Get(key);
                }
            }

            foreach (var name in read.GetPageFileNames())
            {
                var pageFile = read.OpenPageFile(name);
                if (pageFile is not null)
                {
                    pageFile.Read(0, new byte[(int)Math.Min(pageFile.Length, 64 * Constants.PageSize)]);
                }
            }
        }

        try
        {
            env.CheckIntegrity();
        }
        catch (InvalidOperationException e)
        {
            // The checker's documented way to report a structure that every reader accepted but
            // that does not add up; the readers themselves must throw CorruptionException.
            throw new IntegrityViolation(e);
        }
    }

    /// <summary>CheckIntegrity found a violation (its InvalidOperationException, wrapped so a reader's own can be told apart).</summary>
    public sealed class IntegrityViolation(Exception inner) : Exception(inner.Message, inner);

    private static StorageEnvironmentOptions Options(InMemoryFileSystem fs, JournalTailRecovery mode)
    {
        var options = StorageEnvironmentOptions.ForFileSystem(Directory, fs);
        options.BackgroundFlush = false;
        options.JournalFileSize = 64 * 1024;
        options.MaxDataFileSize = MaxDataFileSize;
        options.JournalTailRecovery = mode;
        return options;
    }

    private static bool Starts(Dictionary<string, byte[]> files, JournalPosition position)
    {
        var bytes = files[JournalFiles.PathOf(Directory + "/journal", position.FileNumber)];
        return position.Offset + 8 <= bytes.Length && BinaryPrimitives.ReadUInt64LittleEndian(bytes.AsSpan((int)position.Offset)) == JournalRecord.Magic;
    }

    private static byte[] Key(int batch, int i) => System.Text.Encoding.UTF8.GetBytes($"key-{batch}-{i:D4}");

    private static byte[] Value(Random random, int length)
    {
        var value = new byte[length];
        random.NextBytes(value);
        return value;
    }
}
