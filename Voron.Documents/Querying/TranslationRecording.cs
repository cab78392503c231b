using System.Linq.Expressions;

namespace Voron.Documents.Querying;

/// <summary>
/// How one translation went (QC1 in TranslationCache.cs): the steps that build its conditions from
/// values, the values it branched on, and whether every value it read is a slot of the shape.
/// </summary>
internal sealed class TranslationRecording(IReadOnlyDictionary<Expression, int> slots)
{
    public List<Func<IQueryValues, QueryCondition>> Steps { get; } = [];

    public List<(Expression Node, object? Value)> Guards { get; } = [];

    /// <summary>False when the translation read a value that is not a whole slot: such a translation is not cached.</summary>
    public bool Replayable { get; private set; } = true;

    public IReadOnlyDictionary<Expression, int> Slots => slots;

    public void Read(Expression node)
    {
        if (!slots.ContainsKey(node))
        {
            Replayable = false;
        }
    }
}
