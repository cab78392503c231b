using System.Reflection;

namespace Voron.Tests.Core.Platform;

/// <summary>
/// DelegatingStorageFile, the base of every file wrapper (the crash simulator's file, the
/// recording and gated files of the tests, the load tests' counting, delaying and capturing
/// files), forwards every member of IStorageFile to the inner file and lets a wrapper override
/// any of them.
/// </summary>
public sealed class DelegatingStorageFileTests
{
    /// <summary>A wrapper that changes nothing.</summary>
    private sealed class Plain(IStorageFile inner) : DelegatingStorageFile(inner);

    [Fact]
    public void Every_member_of_IStorageFile_is_virtual_and_declared_on_the_base()
    {
        var map = typeof(DelegatingStorageFile).GetInterfaceMap(typeof(IStorageFile));
        var disposable = typeof(DelegatingStorageFile).GetInterfaceMap(typeof(IDisposable));
        foreach (var method in map.TargetMethods.Concat(disposable.TargetMethods))
        {
            Assert.True(method.DeclaringType == typeof(DelegatingStorageFile), $"{method.Name} is not declared on DelegatingStorageFile");
            Assert.True(method.IsVirtual && !method.IsFinal, $"{method.Name} cannot be overridden");
        }

        Assert.Equal(
            typeof(IStorageFile).GetMethods(BindingFlags.Public | BindingFlags.Instance).Length,
            map.TargetMethods.Length);
    }

    [Fact]
    public void Reads_writes_sizes_and_mappings_reach_the_inner_file()
    {
        using var fs = new InMemoryFileSystem(1 << 20);
        using var inner = fs.Open("/d/file", FileOpenMode.CreateNew);
        using var file = new Plain(inner);

        file.Write(0, new byte[] { 1, 2, 3 });
        file.Write(3, new ReadOnlyMemory<byte>[] { new byte[] { 4, 5 }, new byte[] { 6 } });
        file.FlushData();
        Assert.Equal("/d/file", file.Path);
        Assert.Equal(6, inner.Length);
        Assert.Equal(6, file.Length);

        var read = new byte[6];
        Assert.Equal(6, inner.Read(0, read));
        Assert.Equal(new byte[] { 1, 2, 3, 4, 5, 6 }, read);
        Array.Clear(read);
        Assert.Equal(6, file.Read(0, read));
        Assert.Equal(new byte[] { 1, 2, 3, 4, 5, 6 }, read);

        file.Preallocate(4096);
        Assert.Equal(4096, inner.Length);
        file.SetLength(4);
        Assert.Equal(4, inner.Length);

        using var region = file.MapReadOnly(1 << 20);
        region.Cover(4);
        Assert.Equal(new byte[] { 1, 2, 3, 4 }, region.GetSpan(0, 4).ToArray());
    }

    [Fact]
    public void Every_call_reaches_the_inner_file_and_dispose_disposes_it()
    {
        using var fs = new InMemoryFileSystem(1 << 20);
        var inner = fs.Open("/d/file", FileOpenMode.CreateNew);
        var file = new Plain(inner);
        file.Dispose();

        // The inner file is now disposed, so every call that reaches it throws.
        Assert.Throws<ObjectDisposedException>(() => inner.Length);
        Assert.Throws<ObjectDisposedException>(() => file.Path);
        Assert.Throws<ObjectDisposedException>(() => file.Length);
        Assert.Throws<ObjectDisposedException>(() => file.Read(0, new byte[1]));
        Assert.Throws<ObjectDisposedException>(() => file.Write(0, new byte[1]));
        Assert.Throws<ObjectDisposedException>(() => file.Write(0, new ReadOnlyMemory<byte>[] { new byte[1] }));
        Assert.Throws<ObjectDisposedException>(file.FlushData);
        Assert.Throws<ObjectDisposedException>(() => file.Preallocate(1));
        Assert.Throws<ObjectDisposedException>(() => file.SetLength(1));
        Assert.Throws<ObjectDisposedException>(() => file.MapReadOnly(1 << 20));
    }
}
