using Voron.Documents.Indexing;

namespace Voron.Documents.Querying;

/// <summary>
/// One condition of a query: a JSON path (null: the document id) compared with a value. For a
/// path the value is encoded as index keys are (Indexing/IndexKey.cs; for StartsWith, the string
/// tag and the escaped prefix without its end), for the id it is the raw UTF-8.
/// </summary>
internal sealed record QueryCondition(JsonPath? Path, ConditionKind Kind, byte[] Value, string Display)
{
    /// <summary>For a numeric comparison checked value by value (NC3 in NumericComparison.cs): the check; null otherwise.</summary>
    public NumericComparison? Numeric { get; init; }

    /// <summary>With <see cref="Numeric"/>: the inclusive lower bound of the values it can match (null: the numbers' start).</summary>
    public byte[]? NumericLower { get; init; }

    /// <summary>With <see cref="Numeric"/>: the exclusive upper bound of the values it can match (null: the numbers' end).</summary>
    public byte[]? NumericUpper { get; init; }

    public bool IsId => Path == null;

    /// <summary>Whether the condition matches exactly one encoded value, <see cref="Value"/> (an index prefix can serve it).</summary>
    public bool IsEquality => Kind == ConditionKind.Equal && Numeric == null;

    /// <summary>Whether an index range can serve the condition (every kind but an exact equality and !=).</summary>
    public bool IsRange => !IsEquality && Kind != ConditionKind.NotEqual;

    /// <summary>Whether a bound of the lower side (GreaterThan, GreaterThanOrEqual, StartsWith, a checked ==).</summary>
    public bool IsLower => Kind is ConditionKind.GreaterThan or ConditionKind.GreaterThanOrEqual or ConditionKind.StartsWith ||
                           (Numeric != null && Kind == ConditionKind.Equal);

    /// <summary>Whether a bound of the upper side (LessThan, LessThanOrEqual, StartsWith, a checked ==).</summary>
    public bool IsUpper => Kind is ConditionKind.LessThan or ConditionKind.LessThanOrEqual or ConditionKind.StartsWith ||
                           (Numeric != null && Kind == ConditionKind.Equal);

    /// <summary>The inclusive lower bound of the encoded values a lower-side condition on a path matches.</summary>
    public byte[] LowerBound() => Numeric != null
        ? NumericLower ?? [IndexKey.Number]
        : Kind == ConditionKind.GreaterThan ? IndexKey.Successor(Value)! : Value;

    /// <summary>The exclusive upper bound of the encoded values an upper-side condition on a path matches.</summary>
    public byte[] UpperBound() => Numeric != null
        ? NumericUpper ?? [IndexKey.Number + 1]
        : Kind == ConditionKind.LessThan ? Value : IndexKey.Successor(Value)!;

    /// <summary>
    /// Whether <paramref name="value"/> (an encoded value, or the raw id for an id condition)
    /// satisfies the condition. A range compares only values of the condition's own type.
    /// </summary>
    public bool Matches(ReadOnlySpan<byte> value)
    {
        if (Numeric != null)
        {
            return Numeric.Matches(value);
        }

        switch (Kind)
        {
            case ConditionKind.Equal:
                return value.SequenceEqual(Value);
            case ConditionKind.NotEqual:
                return !value.SequenceEqual(Value);
            case ConditionKind.StartsWith:
                return value.StartsWith(Value);
        }

        if (!IsId && (value.IsEmpty || IndexKey.TypeStart(value[0]) != IndexKey.TypeStart(Value[0])))
        {
            return false;
        }

        var order = value.SequenceCompareTo(Value);
        return Kind switch
        {
            ConditionKind.LessThan => order < 0,
            ConditionKind.LessThanOrEqual => order <= 0,
            ConditionKind.GreaterThan => order > 0,
            _ => order >= 0,
        };
    }

    public override string ToString() => Display;
}
