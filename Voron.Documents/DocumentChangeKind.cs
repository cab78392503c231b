namespace Voron.Documents;

/// <summary>What a <see cref="DocumentChange"/> did to its document.</summary>
public enum DocumentChangeKind
{
    /// <summary>The document was stored (created or replaced); its version is the new one.</summary>
    Stored = 1,

    /// <summary>The document was deleted; the version is the one the delete took (a tombstone's position).</summary>
    Deleted = 2,
}
