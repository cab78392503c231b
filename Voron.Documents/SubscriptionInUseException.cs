namespace Voron.Documents;

/// <summary>
/// Another worker holds the subscription: <see cref="DocumentSubscriptions.OpenAsync"/> waited
/// <see cref="SubscriptionWorkerOptions.WaitTimeout"/> without getting it; or an acknowledgement
/// found the subscription's stored position moved past the batch's start (another worker, or an
/// earlier acknowledgement of the same batch, got there first), and nothing of it was written.
/// </summary>
public sealed class SubscriptionInUseException : InvalidOperationException
{
    /// <summary>Subscription <paramref name="name"/> is held by another worker.</summary>
    public SubscriptionInUseException(string name)
        : this(name, $"Subscription '{name}' is held by another worker; a subscription has one worker at a time. Dispose that worker, or wait longer (SubscriptionWorkerOptions.WaitTimeout).")
    {
    }

    internal SubscriptionInUseException(string name, string message)
        : base(message)
    {
        Name = name;
    }

    /// <summary>The subscription's name.</summary>
    public string Name { get; }
}
