namespace Voron.Documents.Querying;

internal enum PlanKind
{
    /// <summary>One document by id.</summary>
    IdLookup,

    /// <summary>A range of the collection's ids (its membership tree), in id order.</summary>
    IdRange,

    /// <summary>A range of an index's entries.</summary>
    IndexRange,

    /// <summary>Every document of the collection (no conditions, or AllowScan).</summary>
    Scan,
}
