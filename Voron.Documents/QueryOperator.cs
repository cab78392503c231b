namespace Voron.Documents;

/// <summary>A comparison in a raw query (<see cref="IRawDocumentQuery"/>).</summary>
public enum QueryOperator
{
    Equal,
    LessThan,
    LessThanOrEqual,
    GreaterThan,
    GreaterThanOrEqual,
}
