namespace Voron;

/// <summary>A file was written by a format version this build does not read.</summary>
public sealed class FormatVersionException : Exception
{
    /// <summary><paramref name="file"/> has format version <paramref name="found"/>; this build's version is <paramref name="supported"/>.</summary>
    public FormatVersionException(string file, int found, int supported)
        : base($"'{file}' has format version {found}; this build of Voron supports version {supported}.")
    {
        File = file;
        Found = found;
        Supported = supported;
    }

    /// <summary>As the other constructor, with what the user should do (<paramref name="whatToDo"/>) appended to the message.</summary>
    public FormatVersionException(string file, int found, int supported, string whatToDo)
        : base($"'{file}' has format version {found}; this build of Voron supports version {supported}. {whatToDo}")
    {
        File = file;
        Found = found;
        Supported = supported;
    }

    /// <summary>The file whose version is not read.</summary>
    public string File { get; }

    /// <summary>The format version written in the file.</summary>
    public int Found { get; }

    /// <summary>The format version this build writes (the newest it reads; some files it also reads in earlier versions).</summary>
    public int Supported { get; }
}
