using System.Runtime.InteropServices;
using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Stores.Lmdb;

namespace Voron.LoadTests.Tests;

/// <summary>
/// LMDB must run wherever the project builds, with nothing installed but the .NET SDK: LightningDB
/// ships the native library, and <see cref="LmdbLibrary"/> makes it load on Debian 12's glibc.
/// </summary>
public sealed class LmdbLibraryTests
{
    [Fact]
    public void Lmdb_loads_on_linux_x64_without_a_system_package()
    {
        if (!OperatingSystem.IsLinux() || RuntimeInformation.ProcessArchitecture != Architecture.X64)
        {
            return; // LightningDB ships other builds for other systems; CI and our machines are linux-x64
        }

        var version = KvEngineCatalog.All.Single(k => k.Name == KvEngineCatalog.Lmdb).Probe();

        Assert.StartsWith("LMDB 1.", version, StringComparison.Ordinal);
    }

    [Fact]
    public void Shim_redirects_the_glibc_238_references_of_the_shipped_library_once()
    {
        var shipped = Path.Combine(AppContext.BaseDirectory, "runtimes", "linux-x64", "native", "liblmdb.so");
        var image = File.ReadAllBytes(shipped);
        var original = image.ToArray();

        Assert.True(Glibc238Shim.TryPatch(image), "LightningDB 0.23.1's liblmdb.so asks glibc 2.38 for __isoc23_strtol only");
        Assert.Equal(original.Length, image.Length);
        Assert.True(image.Zip(original).Count(p => p.First != p.Second) <= 12, "only a symbol name offset and one version entry change");
        Assert.False(Glibc238Shim.TryPatch(image), "nothing left to redirect");
    }

    [Fact]
    public void Shim_leaves_a_file_that_is_not_elf_alone()
    {
        var bytes = "not a shared library at all, just some text of a reasonable length"u8.ToArray();
        var before = bytes.ToArray();

        Assert.False(Glibc238Shim.TryPatch(bytes));
        Assert.Equal(before, bytes);
    }
}
