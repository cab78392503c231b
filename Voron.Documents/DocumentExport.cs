namespace Voron.Documents;

/// <summary>Options of <see cref="DocumentStore.ExportAsync"/>.</summary>
public sealed class DocumentExportOptions
{
    /// <summary>Export only this collection; null (the default) exports every collection.</summary>
    public string? Collection { get; set; }

    /// <summary>Receives the number of documents written so far, now and then.</summary>
    public IProgress<long>? Progress { get; set; }
}

/// <summary>What <see cref="DocumentStore.ExportAsync"/> wrote.</summary>
/// <param name="TransactionId">The snapshot exported: the last transaction committed when the export began.</param>
/// <param name="Documents">Documents written (lines).</param>
/// <param name="Bytes">Bytes written.</param>
/// <param name="Duration">How long the export took.</param>
public sealed record DocumentExportResult(long TransactionId, long Documents, long Bytes, TimeSpan Duration);

/// <summary>Options of <see cref="DocumentStore.ImportAsync"/>.</summary>
public sealed class DocumentImportOptions
{
    /// <summary>Receives the number of lines read so far, now and then.</summary>
    public IProgress<long>? Progress { get; set; }

    /// <summary>How many rejected lines <see cref="DocumentImportResult.Rejections"/> keeps (all are counted); 100 by default.</summary>
    public int MaxRejectionsKept { get; set; } = 100;
}

/// <summary>What <see cref="DocumentStore.ImportAsync"/> did.</summary>
/// <param name="Imported">Documents stored.</param>
/// <param name="Rejected">Lines refused (not JSON, no <c>@metadata.@id</c> or <c>@metadata.@collection</c>, too large, ...).</param>
/// <param name="Rejections">The first rejected lines, with the reason for each.</param>
/// <param name="Duration">How long the import took.</param>
public sealed record DocumentImportResult(long Imported, long Rejected, IReadOnlyList<ImportRejection> Rejections, TimeSpan Duration);

/// <summary>One line <see cref="DocumentStore.ImportAsync"/> refused.</summary>
/// <param name="Line">Its line number, from 1.</param>
/// <param name="Reason">Why it was refused.</param>
public sealed record ImportRejection(long Line, string Reason);
