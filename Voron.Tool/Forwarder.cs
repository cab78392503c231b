namespace Voron.Tool;

/// <summary>An <see cref="IProgress{T}"/> that calls its action on the reporting thread (not posted, as <see cref="Progress{T}"/> does, so reports stay in order).</summary>
internal sealed class Forwarder<T>(Action<T> report) : IProgress<T>
{
    public void Report(T value) => report(value);
}
