namespace Voron.Platform.Portable;

/// <summary>A real file through .NET's APIs only; <see cref="PortableFileSystem"/> states what each platform promises.</summary>
internal sealed class PortableStorageFile : RealStorageFile
{
    // Windows: ERROR_HANDLE_DISK_FULL (39) and ERROR_DISK_FULL (112) as HRESULTs; Linux and macOS: ENOSPC (28).
    private const int WindowsHandleDiskFull = unchecked((int)0x80070027);
    private const int WindowsDiskFull = unchecked((int)0x80070070);
    private const int Enospc = 28;

    private PortableStorageFile(string path, FileStream stream)
        : base(path, stream)
    {
    }

    internal static PortableStorageFile Open(string path, FileOpenMode mode) =>
        new(path, RealFiles.OpenStream(path, mode, FileShare.ReadWrite | FileShare.Delete));

    protected override bool IsDiskFull(IOException e) =>
        e.HResult is Enospc or WindowsDiskFull or WindowsHandleDiskFull;

    /// <summary>F1: fsync on Linux, F_FULLFSYNC on macOS, FlushFileBuffers on Windows.</summary>
    public override void FlushData() => RandomAccess.FlushToDisk(Handle);

    public override void Preallocate(long length)
    {
        var current = Length;
        if (length <= current)
        {
            return;
        }

        try
        {
            RandomAccess.SetLength(Handle, length);
        }
        catch (IOException e) when (e is not DiskFullException && IsDiskFull(e))
        {
            throw new DiskFullException(
                $"Growing '{Path}' from {current:N0} to {length:N0} bytes needs {length - current:N0} more bytes, " +
                $"and the file system that holds it is full ({e.Message}).", Path, length - current, e);
        }
    }

    public override IMappedRegion MapReadOnly(long reserveLength) => new PortableMapping(Handle, Path, reserveLength);
}
