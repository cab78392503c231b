namespace Voron.Documents.Storage;

/// <summary>What one <see cref="PreparedWrite"/> did: the version it wrote (0 for a delete) and when.</summary>
internal readonly record struct WriteResult(long Version, long Ticks, bool Existed);
