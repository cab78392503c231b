namespace Voron.Documents.AspNetCore;

/// <summary>
/// How the change stream endpoint of <see cref="VoronEndpointRouteBuilderExtensions.MapDocumentChanges"/>
/// behaves.
/// </summary>
public sealed class DocumentChangesOptions
{
    /// <summary>
    /// While no change arrives, a comment line (<c>: keep-alive</c>) is sent this often, so proxies
    /// and load balancers that close idle connections keep the stream open. Default 15 s;
    /// <see cref="Timeout.InfiniteTimeSpan"/> sends none. At most uint.MaxValue - 1 milliseconds
    /// (about 49.7 days), the longest wait a timer takes.
    /// </summary>
    public TimeSpan KeepAliveInterval { get; set; } = TimeSpan.FromSeconds(15);

    /// <summary>
    /// The service key of the store to stream (one registered with <c>AddKeyedVoronDocumentStore</c>);
    /// null (the default): the store registered without a key.
    /// </summary>
    public string? StoreKey { get; set; }

    internal void Validate()
    {
        if (KeepAliveInterval != Timeout.InfiniteTimeSpan && KeepAliveInterval <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(KeepAliveInterval), KeepAliveInterval,
                "KeepAliveInterval must be positive, or Timeout.InfiniteTimeSpan for no keep-alive comments.");
        }

        var max = TimeSpan.FromMilliseconds(uint.MaxValue - 1);
        if (KeepAliveInterval != Timeout.InfiniteTimeSpan && KeepAliveInterval > max)
        {
            // a longer timer throws at every idle wait of the stream
            throw new ArgumentOutOfRangeException(nameof(KeepAliveInterval), KeepAliveInterval,
                $"KeepAliveInterval must be at most {max} (uint.MaxValue - 1 milliseconds), or Timeout.InfiniteTimeSpan for no keep-alive comments.");
        }
    }
}
