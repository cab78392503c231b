using Voron.Paging;

namespace Voron.Tests.Core.Engine;

/// <summary>
/// The data file's length against its high-water mark (Paging/Pager.cs): it grows by an eighth
/// at a time while open (PG4) and is cut back to the high-water mark by a clean close (PG6).
/// </summary>
public sealed class DataFileSizeTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    private string DataFile => Path.Combine(_directory.Path, "voron.data");

    /// <summary>About 5 MiB of pages: 1,300 values of 3,900 bytes, two to a leaf, in 13 commits.</summary>
    private static void Load(StorageEnvironment env, int from = 0, int count = 1_300)
    {
        var value = new byte[3_900];
        for (var batch = from; batch < from + count; batch += 100)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (var i = batch; i < batch + 100; i++)
            {
                BitConverter.TryWriteBytes(value, i);
                tree.Put(BitConverter.GetBytes(System.Buffers.Binary.BinaryPrimitives.ReverseEndianness(i)), value);
            }

            tx.Commit();
        }
    }

    [Fact]
    public void While_open_the_data_file_is_at_most_an_eighth_past_its_high_water_mark()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(_directory.Path));
        Load(env);
        env.FlushToDataFile();

        var highWater = env.Committed.State.NextPageNumber * Constants.PageSize;
        Assert.InRange(highWater, 4L << 20, 6L << 20);
        var length = new FileInfo(DataFile).Length;
        Assert.True(length >= highWater, $"PG2: the file ({length}) holds every allocated page ({highWater})");
        var slack = Math.Max(Pager.MinGrowthPages * Constants.PageSize, highWater / Pager.GrowthDivisor);
        Assert.True(length - highWater <= slack, $"PG4: the file is {length} bytes for a high-water mark of {highWater}");
    }

    [Fact]
    public void Closing_the_store_truncates_the_data_file_to_its_high_water_mark_and_it_reopens_whole()
    {
        long highWater;
        using (var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(_directory.Path)))
        {
            Load(env);
            highWater = env.Committed.State.NextPageNumber * Constants.PageSize;
            Assert.True(new FileInfo(DataFile).Length > highWater, "the test needs a file grown past its high-water mark");
        }

        Assert.Equal(highWater, new FileInfo(DataFile).Length);

        using (var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(_directory.Path)))
        {
            Assert.Equal(highWater, new FileInfo(DataFile).Length); // PG5 at open: nothing to grow
            using (var read = env.BeginRead())
            {
                var tree = read.OpenTree("t")!;
                Assert.Equal(1_300, tree.Count);
                Assert.Equal(1_299, BitConverter.ToInt32(tree.Get(BitConverter.GetBytes(System.Buffers.Binary.BinaryPrimitives.ReverseEndianness(1_299)))!));
            }

            Load(env, from: 1_300, count: 200);
            env.CheckIntegrity();
        }
    }

    [Fact]
    public void A_close_that_cannot_flush_leaves_the_file_as_it_is()
    {
        long length;
        using (var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(_directory.Path)))
        {
            Load(env);
            length = new FileInfo(DataFile).Length;
            env.CloseWithoutFlush();
        }

        Assert.Equal(length, new FileInfo(DataFile).Length);
        using var reopened = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(_directory.Path));
        reopened.CheckIntegrity();
    }

    public void Dispose() => _directory.Dispose();
}
