using System.Text.Json;
using System.Text.Json.Serialization;

namespace Voron.Tests.Documents.Sessions;

/// <summary>A document type with an Id member, serialized with the default (Pascal-case) names.</summary>
public sealed class FdUser
{
    public string? Id { get; set; }

    public string Name { get; set; } = "";

    public int Age { get; set; }

    public string? Nickname { get; set; }
}

/// <summary>A document type that keeps the JSON it does not model through extension data.</summary>
public sealed class FdOpenUser
{
    public string? Id { get; set; }

    public string Name { get; set; } = "";

    [JsonExtensionData]
    public Dictionary<string, JsonElement>? Extra { get; set; }
}

/// <summary>A document type without an Id member.</summary>
public sealed class FdNote
{
    public string Text { get; set; } = "";
}

/// <summary>A document type that leaves null members out of its JSON.</summary>
public sealed class FdSparse
{
    public string? Id { get; set; }

    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Name { get; set; }
}

[JsonSerializable(typeof(FdUser))]
[JsonSerializable(typeof(FdOpenUser))]
[JsonSerializable(typeof(FdNote))]
[JsonSerializable(typeof(FdSparse))]
public sealed partial class SessionJson : JsonSerializerContext;
