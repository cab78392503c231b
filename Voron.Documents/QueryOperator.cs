namespace Voron.Documents;

/// <summary>A comparison in a raw query (<see cref="IRawDocumentQuery"/>).</summary>
public enum QueryOperator
{
    /// <summary>Equal to the value.</summary>
    Equal,
    /// <summary>Less than the value.</summary>
    LessThan,
    /// <summary>Less than or equal to the value.</summary>
    LessThanOrEqual,
    /// <summary>Greater than the value.</summary>
    GreaterThan,
    /// <summary>Greater than or equal to the value.</summary>
    GreaterThanOrEqual,
}
