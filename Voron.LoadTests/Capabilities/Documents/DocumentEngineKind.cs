namespace Voron.LoadTests.Capabilities.Documents;

/// <summary>One engine of the <c>documents</c> suite: its report name and how to open it in an empty directory.</summary>
internal sealed record DocumentEngineKind(string Name, Func<string, Task<IDocumentEngine>> OpenAsync);
