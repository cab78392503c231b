namespace Voron.Trees;

/// <summary>What a tree node holds (byte 2 of a node; see the FORMAT block in TreePage.cs).</summary>
internal enum TreeNodeFlags : byte
{
    None = 0,

    /// <summary>Leaf node whose value follows the key.</summary>
    Inline = 1,

    /// <summary>Leaf node whose value is in an overflow run; the run's page number follows the key.</summary>
    Overflow = 2,

    /// <summary>Branch node pointing at a child page.</summary>
    PageRef = 3,
}
