namespace Voron.Documents.Sessions;

/// <summary>What a session will do with an entry at the next save.</summary>
internal enum EntryState
{
    /// <summary>Loaded or saved: written only if its serialized JSON changed.</summary>
    Tracked,

    /// <summary>Stored (new, or Store() on an untracked entity, or raw): written.</summary>
    Store,

    /// <summary>Deleted: removed.</summary>
    Delete,
}
