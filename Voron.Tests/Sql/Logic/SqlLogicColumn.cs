namespace Voron.Tests.Sql.Logic;

/// <summary>A column of a converted table: its name and the affinity of its declared type ("" for none).</summary>
internal sealed record SqlLogicColumn(string Name, string Affinity);
