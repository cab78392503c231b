namespace Voron.Documents;

/// <summary>Progress of an index build over a collection's existing documents.</summary>
/// <param name="Collection">The collection.</param>
/// <param name="Index">The index being built.</param>
/// <param name="Processed">Documents indexed so far.</param>
/// <param name="Total">Documents the collection held when the build started (writes during the build may change it).</param>
public sealed record IndexBuildProgress(string Collection, string Index, long Processed, long Total);
