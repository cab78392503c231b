namespace Voron.Journal;

/// <summary>
/// One page entry of a recovered record: pages <see cref="PageNumber"/> ..
/// PageNumber + PageCount - 1, stored as <see cref="Encoding"/> (version 1: always the full image,
/// PageCount * PageSize bytes). <see cref="Bytes"/> points into the reader's buffer: it is valid
/// only during the <c>apply</c> callback that received it.
/// </summary>
internal readonly record struct RecoveredPage(long PageNumber, int PageCount, JournalPageEncoding Encoding, ReadOnlyMemory<byte> Bytes);
