namespace Voron.Testing.Crash;

/// <summary>The mutating file-system calls the crash simulator counts (reads, listings and locks are not counted).</summary>
internal enum IoCallKind
{
    CreateFile,
    CreateDirectory,
    Write,
    FlushData,
    Preallocate,
    SetLength,
    DeleteFile,
    MoveFile,
    SyncDirectory,
}
