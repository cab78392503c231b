namespace Voron.Documents.Export;

/// <summary>The counts of one <see cref="DocumentStore.ImportAsync"/>: lines accepted per collection and lines refused (the first ones kept).</summary>
internal sealed class ImportState(int maxRejectionsKept)
{
    private readonly List<ImportRejection> _rejections = [];

    public long Imported { get; private set; }

    public long Rejected { get; private set; }

    public IReadOnlyList<ImportRejection> Rejections => _rejections;

    public Dictionary<string, long> PerCollection { get; } = new(StringComparer.Ordinal);

    public void Accept(string collection)
    {
        Imported++;
        PerCollection[collection] = PerCollection.GetValueOrDefault(collection) + 1;
    }

    public void Reject(long line, string reason)
    {
        Rejected++;
        if (_rejections.Count < maxRejectionsKept)
        {
            _rejections.Add(new ImportRejection(line, reason));
        }
    }
}
