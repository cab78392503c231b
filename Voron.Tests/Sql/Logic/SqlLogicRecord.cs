namespace Voron.Tests.Sql.Logic;

/// <summary>One record of a sqllogictest script: a statement or a query, with the line it starts on.</summary>
internal abstract record SqlLogicRecord(int Line, string Sql);
