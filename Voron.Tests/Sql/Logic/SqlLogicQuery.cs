namespace Voron.Tests.Sql.Logic;

/// <summary>
/// <c>query &lt;types&gt; &lt;sort&gt; [label]</c>: one type letter per column (T text, I integer,
/// R real), the sort mode (nosort, rowsort, valuesort), and the expected values, one per line, or
/// one line "N values hashing to MD5".
/// </summary>
internal sealed record SqlLogicQuery(int Line, string Sql, string Types, string Sort, string? Label, IReadOnlyList<string> Expected, int HashThreshold)
    : SqlLogicRecord(Line, Sql);
