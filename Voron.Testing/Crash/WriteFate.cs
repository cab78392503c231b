namespace Voron.Testing.Crash;

/// <summary>What a power loss does to one unsynced write: it reached the disk whole, not at all, or in part.</summary>
internal enum WriteFate
{
    Keep,
    Drop,
    Tear,
}
