namespace Voron.Documents;

/// <summary>The make-up of a document store (<see cref="DocumentStore.GetStatistics"/>).</summary>
/// <param name="TransactionId">The snapshot <paramref name="Collections"/> and <paramref name="Indexes"/> were counted in.</param>
/// <param name="Collections">Per collection, in name order: documents and their stored bytes.</param>
/// <param name="Indexes">Per index the store defines (built or still building), by collection and name: entries and the bytes they take.</param>
/// <param name="Engine">The engine's statistics (trees, free space, journal), of a snapshot taken right after (its <see cref="StoreStatistics.TransactionId"/>; the same unless a commit came between).</param>
public sealed record DocumentStoreStatistics(long TransactionId, IReadOnlyList<CollectionStatistics> Collections, IReadOnlyList<IndexStatistics> Indexes, StoreStatistics Engine);

/// <summary>One collection.</summary>
/// <param name="Name">The collection.</param>
/// <param name="Documents">Documents in it.</param>
/// <param name="Bytes">The sum of their records' sizes in the <c>@docs</c> tree (JSON as stored, compressed or not, with the record header; not the ids).</param>
public sealed record CollectionStatistics(string Name, long Documents, long Bytes);

/// <summary>One index.</summary>
/// <param name="Collection">The collection it indexes.</param>
/// <param name="Name">The index.</param>
/// <param name="Entries">Entries in its tree.</param>
/// <param name="Bytes">Bytes of its entries' keys (encoded values and the document id) and values.</param>
public sealed record IndexStatistics(string Collection, string Name, long Entries, long Bytes);
