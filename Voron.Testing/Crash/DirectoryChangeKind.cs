namespace Voron.Testing.Crash;

/// <summary>The kinds of <see cref="DirectoryChange"/>.</summary>
internal enum DirectoryChangeKind
{
    CreateFile,
    DeleteFile,
    MoveFile,
    CreateDirectory,
}
