namespace Voron;

/// <summary>A file was written by a format version this build does not read.</summary>
public sealed class FormatVersionException : Exception
{
    public FormatVersionException(string file, int found, int supported)
        : base($"'{file}' has format version {found}; this build of Voron reads version {supported} only.")
    {
        File = file;
        Found = found;
        Supported = supported;
    }

    /// <summary>As the other constructor, with what the user should do (<paramref name="whatToDo"/>) appended to the message.</summary>
    public FormatVersionException(string file, int found, int supported, string whatToDo)
        : base($"'{file}' has format version {found}; this build of Voron reads version {supported} only. {whatToDo}")
    {
        File = file;
        Found = found;
        Supported = supported;
    }

    public string File { get; }

    public int Found { get; }

    public int Supported { get; }
}
