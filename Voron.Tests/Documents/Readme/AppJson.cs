using System.Text.Json.Serialization;

namespace Voron.Tests.Documents.Readme;

[JsonSerializable(typeof(User))]
public sealed partial class AppJson : JsonSerializerContext;
