namespace Voron;

/// <summary>
/// Bytes read from disk break a format rule: a bad checksum, length, page number or sequence.
/// The message names the file, the offset or page, and the rule broken. Voron never repairs or
/// skips such data silently; restore from a backup or investigate the hardware.
/// </summary>
public sealed class CorruptionException : Exception
{
    /// <summary>Bytes in <paramref name="file"/> at byte <paramref name="offset"/> broke the rule that <paramref name="reason"/> names.</summary>
    public CorruptionException(string file, long offset, string reason)
        : base($"Corruption in '{file}' at offset {offset}: {reason}")
    {
        File = file;
        Offset = offset;
        Reason = reason;
    }

    /// <summary>The file holding the bad bytes.</summary>
    public string File { get; }

    /// <summary>The byte offset in <see cref="File"/> of the structure that failed validation.</summary>
    public long Offset { get; }

    /// <summary>Which validity rule the bytes broke.</summary>
    public string Reason { get; }
}
