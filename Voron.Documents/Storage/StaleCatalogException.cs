namespace Voron.Documents.Storage;

/// <summary>
/// I2: a save's index entries were computed with an older index catalog than the transaction
/// sees. Internal: the session recomputes them and submits again.
/// </summary>
internal sealed class StaleCatalogException(long expected, long actual)
    : InvalidOperationException($"The index catalog changed (generation {expected} -> {actual}) while the save was prepared.")
{
    public long Actual { get; } = actual;
}
