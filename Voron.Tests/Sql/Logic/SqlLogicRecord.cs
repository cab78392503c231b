namespace Voron.Tests.Sql.Logic;

/// <summary>One record of a sqllogictest script: a statement or a query, with the line it starts on.</summary>
internal abstract record SqlLogicRecord(int Line, string Sql);

/// <summary><c>statement ok</c> or <c>statement error</c>.</summary>
internal sealed record SqlLogicStatement(int Line, string Sql, bool ExpectError) : SqlLogicRecord(Line, Sql);

/// <summary>
/// <c>query &lt;types&gt; &lt;sort&gt; [label]</c>: one type letter per column (T text, I integer,
/// R real), the sort mode (nosort, rowsort, valuesort), and the expected values, one per line, or
/// one line "N values hashing to MD5".
/// </summary>
internal sealed record SqlLogicQuery(int Line, string Sql, string Types, string Sort, string? Label, IReadOnlyList<string> Expected, int HashThreshold)
    : SqlLogicRecord(Line, Sql);
