namespace Voron.Documents.Querying;

internal enum ConditionKind
{
    Equal,
    LessThan,
    LessThanOrEqual,
    GreaterThan,
    GreaterThanOrEqual,
    StartsWith,
    NotEqual,
}
