using Voron.LoadTests.Capabilities.Documents;

namespace Voron.LoadTests.Experiments.Documents;

/// <summary>
/// One caller of a documents scenario (a copy's <see cref="Load.ScenarioContext.State"/>): its
/// engine handle, made before the measured span, and the number of its next operation (the same
/// sequence for every engine, so each engine gets the same documents and seeds).
/// </summary>
internal sealed class DocumentCopy : IDisposable
{
    private int _disposed;

    public DocumentCopy(IDocumentCaller handle) => Handle = handle;

    public IDocumentCaller Handle { get; }

    /// <summary>The copy's operations so far; only the copy's own invocation (one at a time) reads and moves it.</summary>
    public int Sequence { get; set; }

    /// <summary>Disposes the handle once: the run disposes each copy's state, and the scenario's clean-up every copy it made.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            Handle.Dispose();
        }
    }
}
