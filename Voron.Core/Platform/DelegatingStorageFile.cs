namespace Voron.Platform;

/// <summary>
/// An <see cref="IStorageFile"/> that forwards every member to <see cref="Inner"/>. The wrappers
/// that watch or change a file's calls (the crash simulator's file, the tests' recording and gated
/// files, the load tests' counting, delaying and capturing files) derive from it and override only
/// the calls they change, so a member added to the interface is forwarded here once.
/// </summary>
/// <remarks>
/// An override keeps the contract (F1-F3 on <see cref="IStorageFile"/>) of the file it stands for:
/// the crash simulator's file, for one, decides what a flush makes durable, and its reads still
/// come from the inner file (F3).
/// </remarks>
internal abstract class DelegatingStorageFile(IStorageFile inner) : IStorageFile
{
    /// <summary>The wrapped file, which every member not overridden calls.</summary>
    protected IStorageFile Inner { get; } = inner;

    public virtual string Path => Inner.Path;

    public virtual long Length => Inner.Length;

    public virtual int Read(long offset, Span<byte> destination) => Inner.Read(offset, destination);

    public virtual void Write(long offset, ReadOnlySpan<byte> source) => Inner.Write(offset, source);

    public virtual void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers) => Inner.Write(offset, buffers);

    public virtual void FlushData() => Inner.FlushData();

    public virtual void Preallocate(long length) => Inner.Preallocate(length);

    public virtual void SetLength(long length) => Inner.SetLength(length);

    public virtual IMappedRegion MapReadOnly(long reserveLength) => Inner.MapReadOnly(reserveLength);

    public virtual void Dispose() => Inner.Dispose();
}
