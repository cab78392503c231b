using Voron.Documents.Diagnostics;

namespace Voron.Documents;

public sealed partial class DocumentStore
{
    /// <summary>
    /// Reads every document and index entry of one snapshot and checks that they agree exactly
    /// (L1..L5 in Storage/DocumentTrees.cs): every record is valid and holds one JSON object; each
    /// collection lists exactly its documents; each ready index holds exactly the entries its
    /// definition computes from the documents (an index still being built: no entry that its
    /// documents do not compute); versions are unique and within the store's counter; generated ids
    /// within their collection's counter. Throws <see cref="CorruptionException"/> for a record that
    /// breaks its format and <see cref="InvalidOperationException"/> ("Integrity: ...") for the first
    /// disagreement. Reads everything: for tests, tools and after recovery, not a hot path. Does not
    /// check the Voron store itself (<see cref="StorageEnvironment.CheckIntegrity()"/> does).
    /// </summary>
    public DocumentIntegrityReport CheckIntegrity()
    {
        ThrowIfDisposed();
        return IntegrityCheck.Run(Environment, Telemetry);
    }
}
