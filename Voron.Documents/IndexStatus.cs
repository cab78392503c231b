namespace Voron.Documents;

/// <summary>An index defined in the store and whether it serves queries yet.</summary>
/// <param name="Definition">The definition.</param>
/// <param name="IsReady">True once built; false while its build over existing documents is unfinished (writes keep it up to date meanwhile; <see cref="DocumentStore.EnsureIndexAsync"/> finishes it).</param>
public sealed record IndexStatus(IndexDefinition Definition, bool IsReady);
