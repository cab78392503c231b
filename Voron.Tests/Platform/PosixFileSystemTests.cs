using Voron.Platform;
using Voron.Platform.Posix;

namespace Voron.Tests.Platform;

public sealed class PosixFileSystemTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void LockExclusive_refuses_a_second_lock_in_the_same_process_naming_the_path()
    {
        var path = _directory.Combine("lock");
        using var first = PosixFileSystem.Instance.LockExclusive(path);

        var error = Assert.Throws<StoreLockedException>(() => PosixFileSystem.Instance.LockExclusive(path));

        Assert.Equal(path, error.Path);
        Assert.Contains(path, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void LockExclusive_can_be_taken_again_after_release()
    {
        var path = _directory.Combine("lock");
        PosixFileSystem.Instance.LockExclusive(path).Dispose();

        using var again = PosixFileSystem.Instance.LockExclusive(path);
    }

    [Fact]
    public void Write_then_read_returns_the_bytes_and_gathered_writes_land_in_order()
    {
        using var file = PosixFileSystem.Instance.Open(_directory.Combine("data"), FileOpenMode.CreateNew);
        file.Preallocate(16384);
        file.Write(100, [1, 2, 3]);
        file.Write(8192, new ReadOnlyMemory<byte>[] { new byte[] { 7, 7 }, new byte[] { 9 } });
        file.FlushData();

        var buffer = new byte[3];
        Assert.Equal(3, file.Read(100, buffer));
        Assert.Equal(new byte[] { 1, 2, 3 }, buffer);
        Assert.Equal(3, file.Read(8192, buffer));
        Assert.Equal(new byte[] { 7, 7, 9 }, buffer);
        Assert.Equal(16384, file.Length);
    }

    [Fact]
    public void Open_creates_files_readable_by_the_owner_only()
    {
        var path = _directory.Combine("private");
        using (PosixFileSystem.Instance.Open(path, FileOpenMode.CreateNew))
        {
        }

        var mode = File.GetUnixFileMode(path);
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, mode);
    }

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
