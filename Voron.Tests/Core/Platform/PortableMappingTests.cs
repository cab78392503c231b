using Voron.Platform.Portable;

namespace Voron.Tests.Core.Platform;

/// <summary>
/// The portable mapping's views (Platform/Portable/PortableMapping.cs, MM1–MM3): each growth maps
/// the file anew, the views left behind stay readable until their owner releases them, oldest
/// first, and never the newest.
/// </summary>
public sealed class PortableMappingTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    /// <summary>Grows the file to <paramref name="length"/> with a marker byte at its end, and covers it.</summary>
    private static void Grow(IStorageFile file, IMappedRegion map, long length)
    {
        file.Preallocate(length);
        file.Write(length - 1, [(byte)(length >> 12)]);
        map.Cover(length);
    }

    [Fact]
    public void Released_views_go_oldest_first_and_the_newest_stays_readable()
    {
        using var file = PortableFileSystem.Instance.Open(_directory.Combine("mapped"), FileOpenMode.CreateNew);
        file.Preallocate(4096);
        file.Write(0, [7]);
        using var map = file.MapReadOnly(1L << 30);
        var portable = (PortableMapping)map;
        foreach (var length in new long[] { 8192, 16384, 32768 })
        {
            Grow(file, map, length);
        }

        Assert.Equal(3, map.SupersededViews);
        Assert.Equal(4096 + 8192 + 16384 + 32768, portable.MappedBytes);

        map.ReleaseSuperseded(2); // the 4 KiB and 8 KiB views
        Assert.Equal(16384 + 32768, portable.MappedBytes);
        map.ReleaseSuperseded(1); // already released: nothing more
        Assert.Equal(16384 + 32768, portable.MappedBytes);

        map.ReleaseSuperseded(long.MaxValue); // every view left behind, never the newest (MM1)
        Assert.Equal(32768, portable.MappedBytes);
        Assert.Equal(3, map.SupersededViews);
        Assert.Equal(7, map.GetSpan(0, 1)[0]);
        Assert.Equal((byte)(32768 >> 12), map.GetSpan(32767, 1)[0]);

        Grow(file, map, 65536); // growth goes on after a release
        Assert.Equal(4, map.SupersededViews);
        Assert.Equal(32768 + 65536, portable.MappedBytes);
    }

    [Fact]
    public void A_mapping_that_never_moves_has_nothing_to_release()
    {
        using var file = StoreFactory.NewFileSystem().Open("/memory-file", FileOpenMode.CreateNew);
        file.Preallocate(4096);
        using var map = file.MapReadOnly(1L << 20);
        map.Cover(4096);

        Assert.Equal(0, map.SupersededViews);
        map.ReleaseSuperseded(10);
        Assert.Equal(0, map.GetSpan(100, 1)[0]);
    }

    /// <summary>Runs where MM3 guards a released view: a Debug build on Linux; skipped, with the reason, elsewhere.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    internal sealed class GuardedBuildFactAttribute : FactAttribute
    {
        public GuardedBuildFactAttribute()
        {
#if DEBUG
            if (!OperatingSystem.IsLinux())
            {
                Skip = "MM3's guard is made on Linux only.";
            }
#else
            Skip = "MM3 holds in Debug builds only: a Release build gives a released view's address space back.";
#endif
        }
    }

    [GuardedBuildFact]
    public void A_released_view_is_left_unreadable_in_Debug_builds_so_a_stale_read_faults()
    {
        var path = _directory.Combine("guarded");
        using var file = PortableFileSystem.Instance.Open(path, FileOpenMode.CreateNew);
        file.Preallocate(1L << 20);
        using var map = file.MapReadOnly(1L << 30);
        Grow(file, map, 2L << 20);
        var old = Assert.Single(Mappings(), m => m.Path == path && m.End - m.Start == 1L << 20); // the first view, left behind

        map.ReleaseSuperseded(1);

        // Reading the old address would kill the process (SIGSEGV), so the test reads the kernel's
        // map of this process instead: the range is reserved, neither readable nor writable, and
        // no longer the file's.
        var guard = Assert.Single(Mappings(), m => m.Start <= old.Start && old.Start < m.End);
        Assert.Equal("---p", guard.Permissions);
        Assert.True(guard.End >= old.End, $"the whole released view is guarded: {guard}");
        Assert.NotEqual(path, guard.Path);
        Assert.Single(Mappings(), m => m.Path == path); // the newest view
    }

    /// <summary>This process's mappings, from /proc/self/maps: start, end, permissions and the file mapped, if any.</summary>
    private static List<(long Start, long End, string Permissions, string Path)> Mappings() =>
        File.ReadAllLines("/proc/self/maps").Select(line =>
        {
            var fields = line.Split(' ', 6, StringSplitOptions.RemoveEmptyEntries);
            var range = fields[0].Split('-');
            return (long.Parse(range[0], NumberStyles.HexNumber, CultureInfo.InvariantCulture),
                long.Parse(range[1], NumberStyles.HexNumber, CultureInfo.InvariantCulture), fields[1], fields.Length > 5 ? fields[5].Trim() : "");
        }).ToList();

    public void Dispose() => _directory.Dispose();
}
