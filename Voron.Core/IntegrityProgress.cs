namespace Voron;

/// <summary>How far <see cref="StorageEnvironment.CheckIntegrity(IProgress{IntegrityProgress}, CancellationToken)"/> has come.</summary>
/// <param name="PagesChecked">Pages read and checked so far.</param>
/// <param name="TotalPages">Pages the check reads in all (the allocation high-water mark).</param>
public sealed record IntegrityProgress(long PagesChecked, long TotalPages);
