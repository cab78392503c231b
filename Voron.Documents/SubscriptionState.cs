namespace Voron.Documents;

/// <summary>A subscription as stored: its name, the collection it follows (null: all) and its acknowledged position.</summary>
/// <param name="Name">The subscription's name.</param>
/// <param name="Collection">The collection whose changes it hands out; null for every collection.</param>
/// <param name="Position">The acknowledged position: a document version; every change at or below it was acknowledged.</param>
public sealed record SubscriptionState(string Name, string? Collection, long Position);
