using Voron.Platform.Portable;
using Voron.Platform.Posix;

namespace Voron.Tests.Core.Platform;

/// <summary>
/// The <see cref="IFileSystem"/> contract on both real file systems: the POSIX fast path (Linux
/// only) and the portable one (.NET's APIs, what Windows and macOS run), table-driven over
/// <see cref="FileSystems"/>. PosixFileSystemTests keeps what only the fast path has.
/// </summary>
public sealed class RealFileSystemTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    /// <summary>Every real file system this OS runs: both on Linux, the portable one elsewhere.</summary>
    public static TheoryData<string> FileSystems()
    {
        var data = new TheoryData<string> { "portable" };
        if (OperatingSystem.IsLinux())
        {
            data.Add("posix");
        }

        return data;
    }

    internal static IFileSystem Named(string name) => name switch
    {
        "posix" => PosixFileSystem.Instance,
        "portable" => PortableFileSystem.Instance,
        _ => throw new ArgumentOutOfRangeException(nameof(name)),
    };

    [Theory]
    [MemberData(nameof(FileSystems))]
    public void LockExclusive_refuses_a_second_lock_in_the_same_process_naming_the_path(string fileSystem)
    {
        var files = Named(fileSystem);
        var path = _directory.Combine("lock");
        using var first = files.LockExclusive(path);

        var error = Assert.Throws<StoreLockedException>(() => files.LockExclusive(path));

        Assert.Equal(path, error.Path);
        Assert.Contains(path, error.Message, StringComparison.Ordinal);
        first.Dispose();
        using var again = files.LockExclusive(path); // released on dispose
    }

    [Fact]
    public void LockExclusive_of_either_file_system_excludes_the_other_on_Linux()
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // the POSIX file system runs on Linux only
        }

        var path = _directory.Combine("lock");
        using (PosixFileSystem.Instance.LockExclusive(path))
        {
            Assert.Throws<StoreLockedException>(() => PortableFileSystem.Instance.LockExclusive(path));
        }

        using (PortableFileSystem.Instance.LockExclusive(path))
        {
            Assert.Throws<StoreLockedException>(() => PosixFileSystem.Instance.LockExclusive(path));
        }
    }

    [Theory]
    [MemberData(nameof(FileSystems))]
    public void Opening_a_store_another_process_holds_throws_StoreLockedException(string fileSystem)
    {
        // The child (Voron.Testing.Processes crash-child) opens the store, prints READY and writes for up
        // to 10 seconds; while it runs, this process may not open the store, whichever file
        // system either side uses (both lock the same file the same way).
        var directory = _directory.Combine("store");
        var portable = fileSystem == "portable";
        using var child = Crash.ProcessKillTests.Start(directory, seed: 1, run: 1, lazy: false, portable);
        try
        {
            string? line;
            while ((line = child.StandardOutput.ReadLine()) != null && !line.StartsWith("READY ", StringComparison.Ordinal))
            {
            }

            if (line == null)
            {
                Assert.Fail($"the child exited before opening the store: {child.StandardError.ReadToEnd()}");
            }

            foreach (var usePortable in OperatingSystem.IsLinux() ? new[] { false, true } : [true])
            {
                var options = StorageEnvironmentOptions.ForDirectory(directory);
                options.UsePortableFileSystem = usePortable;
                var error = Assert.Throws<StoreLockedException>(() => StorageEnvironment.Open(options).Dispose());
                Assert.StartsWith(directory, error.Path, StringComparison.Ordinal);
            }
        }
        finally
        {
            child.Kill();
            child.WaitForExit();
        }
    }

    [Theory]
    [MemberData(nameof(FileSystems))]
    public void Write_then_read_returns_the_bytes_and_gathered_writes_land_in_order(string fileSystem)
    {
        using var file = Named(fileSystem).Open(_directory.Combine("data"), FileOpenMode.CreateNew);
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
        Assert.Equal(2, file.Read(16382, buffer)); // short only at the end
    }

    [Theory]
    [MemberData(nameof(FileSystems))]
    public void Open_modes_refuse_what_they_promise_to(string fileSystem)
    {
        var files = Named(fileSystem);
        var path = _directory.Combine("f");
        Assert.Throws<FileNotFoundException>(() => files.Open(path, FileOpenMode.OpenExisting));
        using (files.Open(path, FileOpenMode.CreateNew))
        {
        }

        Assert.Throws<IOException>(() => files.Open(path, FileOpenMode.CreateNew));
        using var reopened = files.Open(path, FileOpenMode.OpenOrCreate);
        Assert.Equal(0, reopened.Length);
    }

    [Theory]
    [MemberData(nameof(FileSystems))]
    public void Open_and_CreateDirectory_make_entries_for_the_owner_only(string fileSystem)
    {
        if (OperatingSystem.IsWindows())
        {
            return; // Windows has ACLs, not mode bits
        }

        var files = Named(fileSystem);
        var directory = _directory.Combine("sub");
        files.CreateDirectory(directory);
        var path = System.IO.Path.Combine(directory, "private");
        using (files.Open(path, FileOpenMode.CreateNew))
        {
        }

        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(path));
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(directory));
    }

    [Theory]
    [MemberData(nameof(FileSystems))]
    public void Files_open_elsewhere_can_be_deleted_and_renamed_over_and_directories_synced(string fileSystem)
    {
        // The journal deletes and recycles files the store may still hold open; on Windows that
        // needs FileShare.Delete on every handle, which the portable file system opens with.
        var files = Named(fileSystem);
        var a = _directory.Combine("a");
        var b = _directory.Combine("b");
        using var held = files.Open(a, FileOpenMode.CreateNew);
        held.Write(0, [1]);
        using (var other = files.Open(b, FileOpenMode.CreateNew))
        {
            other.Write(0, [2]);
        }

        files.MoveFile(b, a);
        files.SyncDirectory(_directory.Path);
        using (var moved = files.Open(a, FileOpenMode.OpenExisting))
        {
            var one = new byte[1];
            moved.Read(0, one);
            Assert.Equal(2, one[0]);
        }

        files.DeleteFile(a);
        files.SyncDirectory(_directory.Path);
        Assert.False(files.FileExists(a));
        Assert.Equal([], files.ListFiles(_directory.Path, "*"));
    }

    [Theory]
    [MemberData(nameof(FileSystems))]
    public void MapReadOnly_sees_writes_made_after_mapping_and_growth_once_covered(string fileSystem)
    {
        using var file = Named(fileSystem).Open(_directory.Combine("mapped"), FileOpenMode.CreateNew);
        file.Preallocate(4096);
        using var map = file.MapReadOnly(1L << 30);
        var before = map.GetSpan(0, 4096);

        file.Write(10, [42]);
        file.Preallocate(1L << 20);
        file.Write(500_000, [43]);
        map.Cover(1L << 20);

        Assert.Equal(42, before[10]); // a span taken before the growth stays readable (MM1)
        Assert.Equal(42, map.GetSpan(10, 1)[0]);
        Assert.Equal(43, map.GetSpan(500_000, 1)[0]);
        file.Write(11, [44]);
        Assert.Equal(44, before[11]); // every view sees later writes (F3)
        Assert.Throws<ArgumentOutOfRangeException>(() => map.Cover(2L << 30));
    }

    [Fact]
    public void The_portable_map_of_an_empty_file_covers_nothing_until_the_file_grows()
    {
        using var file = PortableFileSystem.Instance.Open(_directory.Combine("empty"), FileOpenMode.CreateNew);
        using var map = file.MapReadOnly(1L << 20);
        Assert.Throws<ArgumentOutOfRangeException>(() => map.GetSpan(0, 1));
        Assert.Throws<InvalidOperationException>(() => map.Cover(4096)); // MM2: grow first

        file.Preallocate(8192);
        file.Write(8191, [5]);
        map.Cover(8192);
        Assert.Equal(5, map.GetSpan(8191, 1)[0]);
    }

    [Fact]
    public void UsePortableFileSystem_selects_the_portable_file_system_and_the_default_is_the_platform_s()
    {
        var options = StorageEnvironmentOptions.ForDirectory(_directory.Path);
        Assert.Same(OperatingSystem.IsLinux() ? PosixFileSystem.Instance : PortableFileSystem.Instance, options.FileSystem);
        options.UsePortableFileSystem = true;
        Assert.Same(PortableFileSystem.Instance, options.FileSystem);
        Assert.IsNotType<PortableFileSystem>(StorageEnvironmentOptions.CreateInMemory().FileSystem);
    }

    [Fact]
    public void The_POSIX_file_system_refuses_other_systems_with_a_message_naming_the_portable_one()
    {
        if (OperatingSystem.IsLinux())
        {
            return; // the POSIX file system runs here
        }

        var error = Assert.Throws<PlatformNotSupportedException>(() => PosixFileSystem.Instance.Open(_directory.Combine("x"), FileOpenMode.CreateNew));
        Assert.Contains("PortableFileSystem", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Portable_anonymous_memory_is_zeroed_and_writable()
    {
        // What in-memory stores run on off Linux (InMemoryFile's memory).
        using var memory = new PortableAnonymousMemory(64L << 20);
        Assert.Equal(0, memory.GetSpan((64L << 20) - 1, 1)[0]);
        System.Runtime.CompilerServices.Unsafe.AsRef(in memory.GetSpan(12345, 1)[0]) = 7;
        Assert.Equal(7, memory.GetSpan(12345, 1)[0]);
        Assert.Equal(0, memory.GetSpan(12346, 1)[0]);
    }

    public void Dispose() => _directory.Dispose();
}
