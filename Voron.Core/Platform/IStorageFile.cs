namespace Voron.Platform;

/// <summary>
/// One open file. Every byte Voron.Core reads from or writes to disk passes through this
/// interface, so that a simulated file system (crash tests) can stand in for the real one.
/// </summary>
/// <remarks>
/// Durability contract, which every implementation keeps and the crash simulator models:
/// <list type="number">
/// <item>F1. a write is durable only after a later <see cref="FlushData"/> on the same file
///   returns; before that a power loss may keep it, drop it, or tear it at sector granularity.</item>
/// <item>F2. a file's size set by <see cref="Preallocate"/> or <see cref="SetLength"/> is durable
///   after <see cref="FlushData"/>; its name in a directory only after
///   <see cref="IFileSystem.SyncDirectory"/>.</item>
/// <item>F3. a read returns the bytes of the latest write, durable or not (page cache
///   coherence), and so does a mapping from <see cref="MapReadOnly"/>.</item>
/// </list>
/// </remarks>
public interface IStorageFile : IDisposable
{
    /// <summary>The path the file was opened with, for error messages.</summary>
    string Path { get; }

    /// <summary>The current size in bytes.</summary>
    long Length { get; }

    /// <summary>Reads up to <c>destination.Length</c> bytes at <paramref name="offset"/>; returns
    /// the count read, which is short only at the end of the file.</summary>
    int Read(long offset, Span<byte> destination);

    /// <summary>Writes all of <paramref name="source"/> at <paramref name="offset"/> (one
    /// positional write), extending the file if needed.</summary>
    void Write(long offset, ReadOnlySpan<byte> source);

    /// <summary>Writes the buffers one after another starting at <paramref name="offset"/>, as one
    /// gathered write where the platform has it.</summary>
    void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers);

    /// <summary>Makes every earlier write and the file size durable (fdatasync).</summary>
    void FlushData();

    /// <summary>Reserves disk blocks so the file is at least <paramref name="length"/> bytes long;
    /// a full disk fails here with an <see cref="IOException"/>, not later in a write or a
    /// mapped read.</summary>
    void Preallocate(long length);

    /// <summary>Sets the file size, truncating or extending with zeros.</summary>
    void SetLength(long length);

    /// <summary>
    /// Maps the file read-only with <paramref name="reserveLength"/> bytes of address space. Only
    /// bytes below <see cref="Length"/> may be read through it, and only once
    /// <see cref="IMappedRegion.Cover"/> has covered them: on Linux the mapping reserves the whole
    /// length and never moves; the portable file system maps the file anew as it grows.
    /// </summary>
    IMappedRegion MapReadOnly(long reserveLength);
}

/// <summary>A read-only view of a file, valid until disposed.</summary>
public interface IMappedRegion : IDisposable
{
    /// <summary>The address of the file's first byte. Never dereference past the file's
    /// length: on a real mapping that raises SIGBUS.</summary>
    unsafe byte* BaseAddress { get; }

    /// <summary>The reserved length in bytes: the most the file may grow to while mapped.</summary>
    long ReservedLength { get; }

    /// <summary>
    /// Makes the file's first <paramref name="length"/> bytes (the file already holds them)
    /// readable through <see cref="BaseAddress"/> and <see cref="GetSpan"/>. A mapping that reserved
    /// its whole length has nothing to do; one that cannot reserve past the end of the file (the
    /// portable file system's) maps the grown file again, and <see cref="BaseAddress"/> moves to
    /// the new view. Addresses and spans taken earlier stay readable, below the length they
    /// covered, until the region is disposed or the owner releases the view they came from
    /// (<see cref="ReleaseSuperseded"/>).
    /// </summary>
    void Cover(long length) => ArgumentOutOfRangeException.ThrowIfGreaterThan(length, ReservedLength);

    /// <summary>
    /// How many views <see cref="Cover"/> has left behind so far by moving
    /// <see cref="BaseAddress"/> (0 for a mapping that never moves).
    /// </summary>
    long SupersededViews => 0;

    /// <summary>
    /// Unmaps the first <paramref name="count"/> views <see cref="Cover"/> left behind (those not
    /// unmapped yet; never the view <see cref="BaseAddress"/> is in). The caller promises that no
    /// address or span taken from them is used again: it would read unmapped memory, or whatever
    /// is mapped there since. A mapping that never moves has nothing to release.
    /// </summary>
    void ReleaseSuperseded(long count)
    {
    }

    /// <summary>
    /// The bytes at <paramref name="offset"/>. The span reads the mapping directly: it is valid
    /// only while this region is not disposed, and only below the file's length.
    /// </summary>
    ReadOnlySpan<byte> GetSpan(long offset, int length);
}
