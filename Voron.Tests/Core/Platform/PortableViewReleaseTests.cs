namespace Voron.Tests.Core.Platform;

/// <summary>
/// The data file's mapping on the portable file system keeps one view once no reader is left
/// (Paging/SupersededViews.cs, MV1–MV5). <c>VORON_PORTABLE_GROWTH_MIB</c> sets how far the store
/// grows (default 64 MiB); with 4096 it is the measurement docs/results reports.
/// </summary>
public sealed class PortableViewReleaseTests(ITestOutputHelper output)
{
    private static long GrowthBytes =>
        (Environment.GetEnvironmentVariable("VORON_PORTABLE_GROWTH_MIB") is { } mib ? long.Parse(mib, CultureInfo.InvariantCulture) : 64) << 20;

    /// <summary>
    /// Regression: every view the mapping made as the file grew stayed mapped until the store
    /// closed, so the address space taken grew with the square of the file (some 8 TiB for a
    /// 64 GiB file). Now a view goes once no transaction that may hold an address into it is live.
    /// </summary>
    [Fact]
    public void A_store_grown_on_the_portable_file_system_keeps_one_view_of_its_data_file_once_no_reader_is_left()
    {
        using var directory = new TempDirectory();
        var options = StorageEnvironmentOptions.ForDirectory(directory.Path);
        options.UsePortableFileSystem = true;
        options.BackgroundFlush = false; // the passes that release views run at the explicit flushes below
        options.Durability = DurabilityMode.Lazy;
        options.MaxDataFileSize = GrowthBytes + (1L << 30);
        var before = AddressSpace();
        using var env = StorageEnvironment.Open(options);
        var value = new byte[1 << 20];
        long keptBefore = 0; // what every view kept until close would take: one view of the whole file per growth
        var length = 0L;
        for (var i = 0; env.Pager.PageCount * Constants.PageSize < GrowthBytes; i++)
        {
            using (var tx = env.BeginWrite())
            {
                BitConverter.TryWriteBytes(value, i);
                tx.CreateTree("t").Put(BitConverter.GetBytes(i), value);
                tx.Commit();
            }

            if (env.Pager.PageCount * Constants.PageSize != length)
            {
                length = env.Pager.PageCount * Constants.PageSize;
                keptBefore += length;
            }

            if (i % 32 == 31)
            {
                env.FlushToDataFile();
            }
        }

        env.FlushToDataFile(); // a pass stamps what is left behind (MV3)
        env.FlushToDataFile(); // the next releases it: no transaction is live (MV4)
        var peak = AddressSpace();

        var mapped = env.Pager.MappedBytes;
        output.WriteLine($"data file {length:N0} bytes after {env.Pager.Views.Published + 1} views; mapped now {mapped:N0} bytes " +
            $"(every view kept: {keptBefore:N0}); process address space {before:N0} -> {peak:N0} bytes (VmSize)");
        Assert.True(env.Pager.Views.Published >= 5, $"the file grew in {env.Pager.Views.Published} steps");
        Assert.Equal(env.Pager.Views.Published, env.Pager.Views.Released);
        Assert.Equal(length, mapped);
        using var read = env.BeginRead();
        Assert.True(read.OpenTree("t")!.TryGet(BitConverter.GetBytes(0), out var first) && BitConverter.ToInt32(first) == 0);
    }

    /// <summary>This process's virtual memory size (VmSize in /proc/self/status), or 0 off Linux.</summary>
    private static long AddressSpace()
    {
        if (!OperatingSystem.IsLinux())
        {
            return 0;
        }

        var line = File.ReadLines("/proc/self/status").First(l => l.StartsWith("VmSize:", StringComparison.Ordinal));
        return long.Parse(line["VmSize:".Length..].Trim().Split(' ')[0], CultureInfo.InvariantCulture) * 1024;
    }
}
