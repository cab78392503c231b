namespace Voron.LoadTests.Capabilities.Documents;

/// <summary>
/// One engine of the <c>documents</c> suite: its report name and how to open it in an empty
/// directory; for a sealed variant, the engine it is the same as but for the key
/// (<see cref="SealedTwins"/>), null for the others.
/// </summary>
internal sealed record DocumentEngineKind(string Name, Func<string, Task<IDocumentEngine>> OpenAsync, string? UnsealedTwin = null);
