using System.Text.Json.Serialization;

namespace AotSmoke;

/// <summary>Source-generated JSON metadata: what lets Voron.Documents run without reflection.</summary>
[JsonSerializable(typeof(Product))]
public sealed partial class AppJson : JsonSerializerContext;
