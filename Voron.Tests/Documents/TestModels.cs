using System.Text.Json.Serialization;

namespace Voron.Tests.Documents;

public sealed class User
{
    public string? Id { get; set; }

    public string Name { get; set; } = "";

    public string? Email { get; set; }

    public int Age { get; set; }

    public bool Active { get; set; }

    public List<string> Tags { get; set; } = [];

    public Address? Address { get; set; }

    public Status Status { get; set; }
}

public sealed class Address
{
    public string? City { get; set; }

    public string? Country { get; set; }
}

public enum Status
{
    New,
    Active,
    Banned,
}

[DocumentCollection("orders")]
public sealed class Order
{
    public string? Id { get; set; }

    public string Customer { get; set; } = "";

    public decimal Total { get; set; }

    public List<OrderLine> Lines { get; set; } = [];
}

public sealed class OrderLine
{
    public string Sku { get; set; } = "";

    public int Quantity { get; set; }
}

/// <summary>A type without an Id member: ids are given or generated and kept by the session.</summary>
public sealed class Note
{
    public string Text { get; set; } = "";
}

/// <summary>Another shape for the "User" collection, to read users with a type that does not fit them.</summary>
[DocumentCollection("User")]
public sealed class StrictUser
{
    public string? Id { get; set; }

    public int Name { get; set; }
}

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, UseStringEnumConverter = true)]
[JsonSerializable(typeof(User))]
[JsonSerializable(typeof(Order))]
[JsonSerializable(typeof(Note))]
[JsonSerializable(typeof(StrictUser))]
public sealed partial class TestJson : JsonSerializerContext;
