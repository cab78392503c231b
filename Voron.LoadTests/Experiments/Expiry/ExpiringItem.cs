using System.Text.Json.Serialization;

namespace Voron.LoadTests.Experiments.Expiry;

/// <summary>A small document whose expiry is its <c>expiresAt</c> field (ExpirationOptions.JsonField).</summary>
internal sealed class ExpiringItem
{
    public string? Id { get; set; }

    public string Owner { get; set; } = "";

    public string Payload { get; set; } = "";

    public DateTimeOffset? ExpiresAt { get; set; }
}

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(ExpiringItem))]
internal sealed partial class ExpiryJson : JsonSerializerContext;
