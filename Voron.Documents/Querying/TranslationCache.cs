using System.Collections.Concurrent;
using System.Linq.Expressions;
using System.Text.Json.Serialization.Metadata;

namespace Voron.Documents.Querying;

// QC1. A cached translation replays exactly what ExpressionTranslator did for its shape: the steps
//      that built its conditions, fed with this call's slot values, in the same order; every value
//      the translation branched on (a guard) must be equal in this call, else the call is translated
//      afresh. A step that throws, a slot that cannot be evaluated, or a translation that read a value
//      that is not a slot is never replayed: the fresh translation gives the call its own result or
//      error, message included.
// QC2. The shape (QueryShape) keeps everything of the tree that the translator decides on — node
//      types, static types, members, methods, the document type — and abstracts only the largest
//      parts that do not involve the document, keeping their node type and static type. A tree with
//      a node the shape does not model (a nested lambda over the document, a conversion lambda) has
//      no shape and is translated each time.

/// <summary>
/// Translations of Where predicates by shape (QC1, QC2): a query written once in the code and run
/// with other values is translated once; each call evaluates its values and rebuilds its conditions
/// from them. Planning stays per call: it reads the conditions' values and the index catalog, and
/// costs little once its description is left to Explain. Bounded: when full, it starts over.
/// </summary>
internal static class TranslationCache
{
    /// <summary>The most shapes kept (an application has a few per query it writes).</summary>
    public const int Capacity = 512;

    private static readonly ConcurrentDictionary<QueryShape, Replay> Cache = new();

    public static int Count => Cache.Count;

    public static List<QueryCondition> Conditions(LambdaExpression predicate, JsonTypeInfo root)
    {
        ArgumentNullException.ThrowIfNull(predicate);
        var shape = QueryShape.Of(predicate, root);
        if (shape == null)
        {
            return ExpressionTranslator.Conditions(predicate, root);
        }

        if (Cache.TryGetValue(shape, out var replay) && replay.TryRun(shape) is { } replayed)
        {
            return replayed;
        }

        var slots = new Dictionary<Expression, int>(ReferenceEqualityComparer.Instance);
        var distinct = true;
        for (var i = 0; i < shape.SlotNodes.Count; i++)
        {
            distinct &= slots.TryAdd(shape.SlotNodes[i], i); // one node in two places: another tree of this shape may hold two values there
        }

        var recording = new TranslationRecording(slots);
        var conditions = ExpressionTranslator.Conditions(predicate, root, recording);
        if (recording.Replayable && distinct && replay == null)
        {
            if (Cache.Count >= Capacity)
            {
                Cache.Clear();
            }

            Cache.TryAdd(shape, new Replay(recording));
        }

        return conditions;
    }

    /// <summary>Empties the cache (tests).</summary>
    internal static void Clear() => Cache.Clear();

    /// <summary>A recorded translation and the slot each value it read came from.</summary>
    private sealed class Replay(TranslationRecording recording)
    {
        private readonly Func<IQueryValues, QueryCondition>[] _steps = [.. recording.Steps];
        private readonly (int Slot, object? Value)[] _guards = [.. recording.Guards.Select(g => (recording.Slots[g.Node], g.Value))];
        private readonly IReadOnlyDictionary<Expression, int> _slots = recording.Slots;

        /// <summary>The conditions for the predicate of <paramref name="shape"/>, or null when this call must be translated afresh (QC1).</summary>
        public List<QueryCondition>? TryRun(QueryShape shape)
        {
            var values = new SlotValues(_slots, shape.SlotNodes);
            try
            {
                foreach (var (slot, expected) in _guards)
                {
                    if (!Equals(values.At(slot), expected))
                    {
                        return null;
                    }
                }

                var conditions = new List<QueryCondition>(_steps.Length);
                foreach (var step in _steps)
                {
                    conditions.Add(step(values));
                }

                return conditions;
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                return null; // the fresh translation reports it as the translator does
            }
        }
    }

    /// <summary>This call's slot values, each evaluated once, when first read.</summary>
    private sealed class SlotValues(IReadOnlyDictionary<Expression, int> slots, IReadOnlyList<Expression> nodes) : IQueryValues
    {
        private readonly object?[] _values = new object?[nodes.Count];
        private readonly bool[] _evaluated = new bool[nodes.Count];

        public object? At(int slot)
        {
            if (!_evaluated[slot])
            {
                _values[slot] = ExpressionEvaluator.Evaluate(nodes[slot]);
                _evaluated[slot] = true;
            }

            return _values[slot];
        }

        public object? Value(Expression node) => At(slots[node]);
    }
}
