using System.Runtime.InteropServices;

namespace Voron.Tests.Compression;

/// <summary>
/// The reference LZ4 implementation (Debian's liblz4-1 package, liblz4.so.1), called only by the
/// interop tests to check that Lz4Block's blocks are the format everyone else reads and writes.
/// DllImport rather than LibraryImport: the generated LibraryImport stubs need unsafe code, which
/// this project does not allow, and `ref byte` arguments need no marshalling beyond pinning.
/// </summary>
internal static class LibLz4
{
    private const string LibraryName = "liblz4.so.1";

    private static readonly Lazy<string?> LoadError = new(() =>
        NativeLibrary.TryLoad(LibraryName, typeof(LibLz4).Assembly, null, out _)
            ? null
            : $"{LibraryName} (the reference LZ4 library) could not be loaded; install it with `apt-get install liblz4-1`.");

    /// <summary>Fails the calling test with a message saying how to install the library when it is missing.</summary>
    public static void EnsureLoaded()
    {
        if (LoadError.Value is { } error)
        {
            Assert.Fail(error);
        }
    }

    /// <summary>LZ4_compress_fast: returns the block's length, or 0 when the destination is too small.</summary>
    public static int Compress(ReadOnlySpan<byte> source, Span<byte> destination, int acceleration = 1) =>
        LZ4_compress_fast(ref MemoryMarshal.GetReference(source), ref MemoryMarshal.GetReference(destination), source.Length, destination.Length, acceleration);

    /// <summary>LZ4_decompress_safe: returns the bytes produced, or a negative number for a malformed block.</summary>
    public static int Decompress(ReadOnlySpan<byte> source, Span<byte> destination) =>
        LZ4_decompress_safe(ref MemoryMarshal.GetReference(source), ref MemoryMarshal.GetReference(destination), source.Length, destination.Length);

    [DllImport(LibraryName)]
    private static extern int LZ4_compress_fast(ref byte source, ref byte destination, int sourceSize, int maxDestinationSize, int acceleration);

    [DllImport(LibraryName)]
    private static extern int LZ4_decompress_safe(ref byte source, ref byte destination, int compressedSize, int maxDecompressedSize);
}
