using System.Text.Json.Serialization;

namespace Voron.Tests.Documents.Expiration;

/// <summary>A document whose expiry is a JSON field (ExpirationOptions.JsonField = "expiresAt").</summary>
public sealed class Expiring
{
    public string? Id { get; set; }

    public string Name { get; set; } = "";

    public DateTimeOffset? ExpiresAt { get; set; }
}

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(Expiring))]
public sealed partial class ExpiryJson : JsonSerializerContext;
