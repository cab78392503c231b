namespace Voron.Tests.Core.Compaction;

/// <summary>Fills stores with the mix compaction must carry over: many trees, small and large values, churn, page files with holes.</summary>
internal static class CompactionStores
{
    public static byte[] Bytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }

    public static byte[] Key(int i) => System.Text.Encoding.UTF8.GetBytes($"key{i:D6}");

    /// <summary>
    /// Trees t0..t5 of small values inserted in random order, "big" with overflow values, "churn"
    /// where two keys of three were deleted again (free pages left behind), an empty tree, and two
    /// page files: "db" with a hole in the middle, "sparse" with a hole at its end. <paramref name="scale"/>
    /// multiplies the entry counts.
    /// </summary>
    public static void Fill(StorageEnvironment environment, int seed, int scale = 1)
    {
        var random = new Random(seed);
        using (var write = environment.BeginWrite())
        {
            for (var t = 0; t < 6; t++)
            {
                var tree = write.CreateTree($"t{t}");
                foreach (var i in Enumerable.Range(0, 300 * scale).OrderBy(_ => random.Next()))
                {
                    tree.Put(Key(i), Bytes(random, random.Next(0, 120)));
                }
            }

            var big = write.CreateTree("big");
            for (var i = 0; i < 6 * scale; i++)
            {
                big.Put(Key(i), Bytes(random, 9000 + random.Next(0, 30000)));
            }

            write.CreateTree("empty");
            var db = write.CreatePageFile("db");
            db.Write(0, Bytes(random, 5 * PageFile.BlockSize));
            db.Write(8L * PageFile.BlockSize, Bytes(random, PageFile.BlockSize + 1234)); // blocks 5..7 a hole, block 9 partial
            var sparse = write.CreatePageFile("sparse");
            sparse.Write(100, Bytes(random, 500));
            sparse.SetLength(4L * PageFile.BlockSize); // blocks 1..3 a hole at the end
            write.Commit();
        }

        using (var write = environment.BeginWrite())
        {
            var churn = write.CreateTree("churn");
            for (var i = 0; i < 1500 * scale; i++)
            {
                churn.Put(Key(i), Bytes(random, 200));
            }

            write.Commit();
        }

        using (var write = environment.BeginWrite())
        {
            var churn = write.CreateTree("churn");
            for (var i = 0; i < 1500 * scale; i++)
            {
                if (i % 3 != 0)
                {
                    churn.Delete(Key(i));
                }
            }

            write.CreateTree("big").Delete(Key(0));
            write.Commit();
        }

        environment.FlushToDataFile();
    }
}
