using Voron.Platform.Posix;

namespace Voron.Tests.Core.Platform;

/// <summary>What only the POSIX fast path does: one mapping reserved past the end of the file. Locks, I/O and modes of both real file systems: <see cref="RealFileSystemTests"/>.</summary>
public sealed class PosixFileSystemTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void MapReadOnly_sees_writes_made_after_mapping_and_growth_within_the_reservation()
    {
        using var file = PosixFileSystem.Instance.Open(_directory.Combine("mapped"), FileOpenMode.CreateNew);
        file.Preallocate(4096);
        using var map = file.MapReadOnly(1L << 30);

        file.Write(10, [42]);
        file.Preallocate(8192);
        file.Write(5000, [43]);

        Assert.Equal(42, map.GetSpan(10, 1)[0]);
        Assert.Equal(43, map.GetSpan(5000, 1)[0]);
    }

    public void Dispose() => _directory.Dispose();
}
