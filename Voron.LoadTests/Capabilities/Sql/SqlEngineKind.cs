namespace Voron.LoadTests.Capabilities.Sql;

/// <summary>One engine of the <c>sql</c> suite: its report name and how to open it in an empty directory.</summary>
internal sealed record SqlEngineKind(string Name, Func<string, ISqlEngine> Open);
