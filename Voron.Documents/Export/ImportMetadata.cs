namespace Voron.Documents.Export;

/// <summary>What <see cref="JsonLineText.WithoutMetadata"/> found in a line's top-level <c>@metadata</c>.</summary>
internal struct ImportMetadata
{
    /// <summary>How many top-level <c>@metadata</c> properties the object has.</summary>
    public int Count;

    public bool NotAnObject;

    public int IdCount;

    public bool IdIsString;

    public string? Id;

    public int CollectionCount;

    public bool CollectionIsString;

    public string? Collection;
}
