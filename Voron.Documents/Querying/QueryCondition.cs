using Voron.Documents.Indexing;

namespace Voron.Documents.Querying;

/// <summary>
/// One condition of a query: a JSON path (null: the document id) compared with a value. For a
/// path the value is encoded as index keys are (Indexing/IndexKey.cs; for StartsWith, the string
/// tag and the escaped prefix without its end), for the id it is the raw UTF-8.
/// </summary>
internal sealed record QueryCondition(JsonPath? Path, ConditionKind Kind, byte[] Value, string Display)
{
    public bool IsId => Path == null;

    public bool IsRange => Kind != ConditionKind.Equal;

    /// <summary>Whether a bound of the lower side (GreaterThan, GreaterThanOrEqual, StartsWith).</summary>
    public bool IsLower => Kind is ConditionKind.GreaterThan or ConditionKind.GreaterThanOrEqual or ConditionKind.StartsWith;

    /// <summary>Whether a bound of the upper side (LessThan, LessThanOrEqual, StartsWith).</summary>
    public bool IsUpper => Kind is ConditionKind.LessThan or ConditionKind.LessThanOrEqual or ConditionKind.StartsWith;

    /// <summary>
    /// Whether <paramref name="value"/> (an encoded value, or the raw id for an id condition)
    /// satisfies the condition. A range compares only values of the condition's own type.
    /// </summary>
    public bool Matches(ReadOnlySpan<byte> value)
    {
        switch (Kind)
        {
            case ConditionKind.Equal:
                return value.SequenceEqual(Value);
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
