namespace Voron.Documents;

/// <summary>
/// No subscription of that name exists: it was never created, or it was deleted (also while a
/// worker held it: that worker's next call, and an acknowledgement in flight, fail with this).
/// </summary>
public sealed class SubscriptionNotFoundException : InvalidOperationException
{
    /// <summary>Subscription <paramref name="name"/> does not exist.</summary>
    public SubscriptionNotFoundException(string name)
        : this(name, $"There is no subscription named '{name}'. Create it first (DocumentStore.Subscriptions.CreateAsync).")
    {
    }

    internal SubscriptionNotFoundException(string name, string message)
        : base(message)
    {
        Name = name;
    }

    /// <summary>The subscription's name.</summary>
    public string Name { get; }
}
