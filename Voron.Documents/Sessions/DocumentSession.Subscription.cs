using Voron.Documents.Subscriptions;

namespace Voron.Documents.Sessions;

internal sealed partial class DocumentSession
{
    /// <summary>
    /// The acknowledgement the next save carries (SU1), set by SubscriptionBatch.OpenSession; the
    /// save applies it in its transaction, even with no document changes, and clears it once
    /// committed (later saves are ordinary).
    /// </summary>
    internal SubscriptionAck? Ack { get; set; }
}
