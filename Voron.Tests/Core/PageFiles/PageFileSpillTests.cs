using Voron.Testing;

namespace Voron.Tests.Core.PageFiles;

/// <summary>
/// Page-file blocks have no page header, so the scratch file must not check a spilled block's slot
/// by its header (SC1): a long reader whose versions of a page file spilled reads them back.
/// </summary>
public sealed class PageFileSpillTests
{
    [Fact]
    public void A_long_reader_reads_page_file_blocks_that_spilled_to_the_scratch_file()
    {
        using var directory = new TempDirectory();
        var options = StorageEnvironmentOptions.ForDirectory(directory.Path);
        options.BackgroundFlush = false;
        options.MaxPageVersionMemory = Constants.PageSize; // every version beyond one page spills
        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            var file = tx.CreatePageFile("db");
            for (var block = 0; block < 8; block++)
            {
                file.Write(block * PageFile.BlockSize, Block(block, generation: 0));
            }

            tx.Commit();
        }

        using var reader = env.BeginRead();
        for (var generation = 1; generation <= 3; generation++)
        {
            using var tx = env.BeginWrite();
            var file = tx.OpenPageFile("db")!;
            for (var block = 0; block < 8; block++)
            {
                file.Write(block * PageFile.BlockSize, Block(block, generation));
            }

            tx.Commit();
        }

        Assert.True(env.PageTable.Scratch.Length > 0, "the test must make versions spill");
        var old = reader.OpenPageFile("db")!;
        var bytes = new byte[PageFile.BlockSize];
        for (var block = 0; block < 8; block++)
        {
            old.Read(block * PageFile.BlockSize, bytes);
            Assert.Equal(Block(block, generation: 0), bytes);
        }

        env.FlushToDataFile(); // the flusher reads spilled blocks too
        using var latest = env.BeginRead();
        var current = latest.OpenPageFile("db")!;
        for (var block = 0; block < 8; block++)
        {
            current.Read(block * PageFile.BlockSize, bytes);
            Assert.Equal(Block(block, generation: 3), bytes);
        }
    }

    private static byte[] Block(int block, int generation)
    {
        var bytes = new byte[PageFile.BlockSize];
        new Random((block * 31) + generation).NextBytes(bytes);
        return bytes;
    }
}
