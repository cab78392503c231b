using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Vfs;

/// <summary>
/// A file SQLite opened through the VFS: a database kept in the store (Databases/DatabaseFile.cs)
/// or an in-memory journal or temporary file (<see cref="MemoryFile"/>). Methods throw; the
/// native callbacks (IoCallbacks.*.cs) turn exceptions into SQLite result codes.
/// </summary>
internal abstract unsafe class VfsFile
{
    /// <summary>The registration that opened the file (it keeps its native memory until its last file closes).</summary>
    public NativeVfs? Owner { get; set; }

    /// <summary>Reads at <paramref name="offset"/>; a read past the end zero-fills and returns SQLITE_IOERR_SHORT_READ.</summary>
    public abstract int Read(Span<byte> destination, long offset);

    public abstract void Write(ReadOnlySpan<byte> source, long offset);

    public abstract void Truncate(long size);

    public abstract long Size { get; }

    public virtual int Lock(int level) => SqliteConstants.Ok;

    public virtual int Unlock(int level) => SqliteConstants.Ok;

    public virtual bool IsReservedByAnother => false;

    /// <summary>SQLITE_NOTFOUND for opcodes the file does not handle, as SQLite requires.</summary>
    public virtual int FileControl(int op, void* argument) => SqliteConstants.NotFound;

    public virtual int SectorSize => 512;

    public virtual int DeviceCharacteristics =>
        SqliteConstants.IoCapSafeAppend | SqliteConstants.IoCapSequential | SqliteConstants.IoCapPowersafeOverwrite;

    public virtual void Close()
    {
    }
}
