namespace Voron.Header;

/// <summary>
/// The files of one store directory:
/// <code>
///   &lt;dir&gt;/voron.lock         held exclusively while the store is open
///   &lt;dir&gt;/voron.data         the data file: 8 KiB pages, memory-mapped read-only
///   &lt;dir&gt;/headers.one        header copy written at odd revisions (Header/HeaderFile.cs)
///   &lt;dir&gt;/headers.two        header copy written at even revisions
///   &lt;dir&gt;/journal/           journal files, 0000000000000000001.journal ... (Journal/)
///   &lt;dir&gt;/voron.scratch      page versions spilled from memory (Scratch/ScratchFile.cs); never
///                            read at recovery, deleted on open and on a clean close
///   &lt;dir&gt;/compaction/        only during a compaction: the dense copy and its marker
///                            (Compaction/CompactionSwap.cs); finished or deleted on open
/// </code>
/// </summary>
internal sealed record StoreLayout(string Directory)
{
    public string LockFile => Path.Combine(Directory, "voron.lock");

    public string DataFile => Path.Combine(Directory, "voron.data");

    public string JournalDirectory => Path.Combine(Directory, "journal");

    public string ScratchFile => Path.Combine(Directory, "voron.scratch");

    /// <summary>The header copy a given revision is written to: odd revisions to one, even to two,
    /// so a torn header write always leaves the other copy intact.</summary>
    public string HeaderFile(long revision) => Path.Combine(Directory, revision % 2 == 1 ? "headers.one" : "headers.two");
}
