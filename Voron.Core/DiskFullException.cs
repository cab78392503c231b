namespace Voron;

/// <summary>The disk had no room for a write or a preallocation (ENOSPC).</summary>
public sealed class DiskFullException : IOException
{
    public DiskFullException(string message) : base(message) { }
}
