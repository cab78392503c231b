using System.Text.Json.Serialization;

namespace Voron.LoadTests.Experiments.Documents;

/// <summary>Source-generated JSON metadata for <see cref="Profile"/> (camelCase, as web APIs write it).</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(Profile))]
public sealed partial class ProfileJson : JsonSerializerContext;
