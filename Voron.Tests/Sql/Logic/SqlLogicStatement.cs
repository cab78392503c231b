namespace Voron.Tests.Sql.Logic;

/// <summary><c>statement ok</c> or <c>statement error</c>.</summary>
internal sealed record SqlLogicStatement(int Line, string Sql, bool ExpectError) : SqlLogicRecord(Line, Sql);
