using Voron.Documents.Storage;

namespace Voron.Documents.Indexing;

/// <summary>An index as the store uses it: its definition, its tree, its build state, and where its paths sit in its collection's extractor.</summary>
internal sealed class IndexRuntime(IndexDefinition definition, bool ready, int[] slots)
{
    public IndexDefinition Definition { get; } = definition;

    public string TreeName { get; } = DocumentTrees.IndexTree(definition.Collection, definition.Name);

    /// <summary>Whether the build finished: only ready indexes serve queries (building ones are maintained all the same).</summary>
    public bool Ready { get; } = ready;

    /// <summary>For each of the definition's paths, its position in <see cref="CollectionIndexes.Paths"/>.</summary>
    public int[] Slots { get; } = slots;

    public int ComponentCount => Slots.Length;

    /// <summary>The position of the multikey path among the components, or -1.</summary>
    public int MultikeyComponent { get; } = definition.JsonPaths.ToList().FindIndex(p => p.IsMultikey);

    public string Name => Definition.Name;
}
