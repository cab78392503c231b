// TEMPORARY: the feed helper's types as the contract declares them, so subscriptions compile
// before `git merge feed`. Deleted before that merge.
#pragma warning disable RS0016, CA1822, IDE0060, CS1591
namespace Voron.Documents
{
    public enum DocumentChangeKind { Stored = 1, Deleted = 2 }

    public sealed record DocumentChange(long Version, string Id, string Collection, DocumentChangeKind Kind, DateTimeOffset LastModified)
    {
        public ReadOnlyMemory<byte>? Json { get; init; }
    }

    public sealed class ChangeFeedPositionException(long requested, long oldest) : InvalidOperationException($"{requested} < {oldest}")
    {
        public long Requested { get; } = requested;

        public long Oldest { get; } = oldest;
    }
}

namespace Voron.Documents.Changes
{
    internal static class ChangeLog
    {
        public static int Read(ReadTransaction read, long after, string? collection, bool includeJson, int max, List<DocumentChange> into, out long scannedThrough, string storePath)
        {
            scannedThrough = after;
            return 0;
        }

        public static long Oldest(ReadTransaction read, string storePath) => 0;
    }
}

namespace Voron.Documents.Subscriptions
{
    internal static class WaitStub
    {
        public static async Task WaitForCommitAsync(this StorageEnvironment environment, long after, CancellationToken cancellationToken)
        {
            while (environment.LastCommittedTransactionId <= after)
            {
                await Task.Delay(5, cancellationToken).ConfigureAwait(false);
            }
        }
    }
}
