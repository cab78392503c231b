using Voron.Documents.Indexing;

namespace Voron.Documents.Querying;

/// <summary>One sort key of a query: a JSON path (null: the id) and its direction.</summary>
internal sealed record QueryOrder(JsonPath? Path, bool Descending, string Display)
{
    public bool IsId => Path == null;

    public override string ToString() => Display + (Descending ? " desc" : "");
}
