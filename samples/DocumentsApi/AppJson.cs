using System.Text.Json;
using System.Text.Json.Serialization;

namespace DocumentsApi;

/// <summary>Source-generated JSON metadata (camelCase, as ASP.NET Core writes): the store and the endpoints both use it.</summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(Product))]
[JsonSerializable(typeof(PriceChange))]
public sealed partial class AppJson : JsonSerializerContext;
