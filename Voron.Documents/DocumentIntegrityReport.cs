namespace Voron.Documents;

/// <summary>What <see cref="DocumentStore.CheckIntegrity"/> verified.</summary>
/// <param name="Documents">Documents in the store.</param>
/// <param name="Collections">Collections with at least one document.</param>
/// <param name="Indexes">Indexes defined.</param>
/// <param name="IndexEntries">Index entries, each checked against its document.</param>
/// <param name="LastVersion">The store's last handed-out document version.</param>
public sealed record DocumentIntegrityReport(long Documents, int Collections, int Indexes, long IndexEntries, long LastVersion);
