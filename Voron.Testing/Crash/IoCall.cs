namespace Voron.Testing.Crash;

/// <summary>
/// One counted call: its index in the run (the crash point), what it was and where. A crash
/// point names the call that never returned.
/// </summary>
internal readonly record struct IoCall(int Index, IoCallKind Kind, string Path, long Offset = 0, long Length = 0, string? Target = null)
{
    /// <summary>Whether the call changes a file's bytes or size (the points full disk and I/O errors are injected at).</summary>
    public bool IsDataCall => Kind is IoCallKind.Write or IoCallKind.Preallocate or IoCallKind.SetLength or IoCallKind.FlushData;

    public override string ToString() => Kind switch
    {
        IoCallKind.Write => $"#{Index} Write {Path} [{Offset}, {Offset + Length})",
        IoCallKind.Preallocate or IoCallKind.SetLength => $"#{Index} {Kind} {Path} {Length}",
        IoCallKind.MoveFile => $"#{Index} Move {Path} -> {Target}",
        _ => $"#{Index} {Kind} {Path}",
    };
}
