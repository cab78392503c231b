namespace Voron.SqliteVfs.Databases;

/// <summary>How a commit changed block 0, which holds page 1 and its file header (V5).</summary>
internal enum Block0Change
{
    /// <summary>Not written, or written unchanged.</summary>
    None,

    /// <summary>Only the change counter and the version fields (bytes 24..27, 92..99).</summary>
    CounterOnly,

    /// <summary>Also the page count or the free list (bytes 28..39): V5 conflicts.</summary>
    HeaderOnly,

    /// <summary>Anything else: schema, user_version, the sqlite_schema root, a neighbouring small page.</summary>
    Content,
}
