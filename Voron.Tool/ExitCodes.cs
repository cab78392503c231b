namespace Voron.Tool;

/// <summary>The tool's exit codes (docs/tools.md, "Exit codes").</summary>
internal static class ExitCodes
{
    /// <summary>The command did what was asked and found nothing wrong.</summary>
    public const int Ok = 0;

    /// <summary>Damage found: a check failed, or the store could not be read because it is damaged.</summary>
    public const int Damage = 1;

    /// <summary>A usage error: bad arguments or options, a missing directory, a directory that is not a store.</summary>
    public const int Usage = 2;

    /// <summary>The command could not run: the store is open elsewhere, its format is newer, an I/O error, some input refused.</summary>
    public const int Failed = 3;

    /// <summary>Cancelled (Ctrl+C).</summary>
    public const int Cancelled = 130;
}
