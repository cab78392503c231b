namespace Voron.Documents;

/// <summary>The make-up of a document store (<see cref="DocumentStore.GetStatistics"/>).</summary>
/// <param name="Collections">Per collection: documents and their stored bytes.</param>
/// <param name="Indexes">Per index: entries and the bytes they take.</param>
/// <param name="Engine">The engine's statistics (trees, free space, journal).</param>
public sealed record DocumentStoreStatistics(IReadOnlyList<CollectionStatistics> Collections, IReadOnlyList<IndexStatistics> Indexes, StoreStatistics Engine);

/// <summary>One collection.</summary>
/// <param name="Name">The collection.</param>
/// <param name="Documents">Documents in it.</param>
/// <param name="Bytes">Their stored records' bytes (JSON as stored, compressed or not, with the record header).</param>
public sealed record CollectionStatistics(string Name, long Documents, long Bytes);

/// <summary>One index.</summary>
/// <param name="Collection">The collection it indexes.</param>
/// <param name="Name">The index.</param>
/// <param name="Entries">Entries in its tree.</param>
/// <param name="Bytes">Bytes of its keys and values.</param>
public sealed record IndexStatistics(string Collection, string Name, long Entries, long Bytes);
