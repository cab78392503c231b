using System.Text.Json.Serialization;

namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>Source-generated JSON metadata for the orders workload (camelCase, as web APIs write it).</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(Order))]
[JsonSerializable(typeof(Customer))]
[JsonSerializable(typeof(Product))]
public sealed partial class OrdersJson : JsonSerializerContext;
