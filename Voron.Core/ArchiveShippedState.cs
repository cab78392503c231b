namespace Voron;

/// <summary>
/// What a journal archive directory says of its shipping to a destination
/// (<see cref="JournalArchive.ReadShippedState"/>, <c>voron info --archive</c>): read from the
/// directory's state file and its files, without asking the destination. The running store's
/// <see cref="StorageEnvironment.ArchiveShipping"/> says the same and more (failures, the destination).
/// </summary>
/// <param name="Lineage">The store id the shipped objects are stored under (16 hex digits).</param>
/// <param name="LastShippedFile">The last journal file number stored in the destination (0 = none yet).</param>
/// <param name="LastShippedTransaction">The last transaction of that file (0 = none yet, or written by a build that did not record it).</param>
/// <param name="PendingFiles">Archived journal files after it, not yet shipped.</param>
/// <param name="PendingBytes">Their bytes.</param>
public sealed record ArchiveShippedState(string Lineage, long LastShippedFile, long LastShippedTransaction, int PendingFiles, long PendingBytes);
