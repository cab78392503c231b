namespace Voron.Tests.Sql.Logic;

/// <summary>The columns a PRIMARY KEY or UNIQUE constraint keeps unique.</summary>
internal sealed record SqlLogicUniqueKey(bool IsPrimaryKey, IReadOnlyList<string> Columns);
