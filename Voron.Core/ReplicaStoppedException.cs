namespace Voron;

/// <summary>
/// A read replica stopped following its primary: the shipped log has a gap, an object does not
/// continue the chain or is damaged, or the primary's lineage forked (rules RE5, RE6 in
/// Voron.Core/Replication/ReplicaFollower.cs). The replica still serves what it applied. The
/// message says what to do; the cause, when there is one, is the <see cref="Exception.InnerException"/>.
/// </summary>
public sealed class ReplicaStoppedException : InvalidOperationException
{
    /// <summary>The replica stopped for the reason <paramref name="message"/> gives.</summary>
    public ReplicaStoppedException(string message, Exception? cause = null)
        : base(message, cause)
    {
    }
}
