namespace Voron.Tests.Documents.Readme;

/// <summary>The README quick start's document type, as written there.</summary>
public sealed class User
{
    public string? Id { get; set; }

    public string Name { get; set; } = "";

    public string Email { get; set; } = "";

    public int Age { get; set; }

    public List<string> Tags { get; set; } = [];
}
