namespace Voron.Documents.Indexing;

/// <summary>
/// A path into a JSON document, as index definitions and raw queries write it: property names
/// separated by dots, <c>[]</c> after a name for "each element of this array" —
/// <c>email</c>, <c>address.city</c>, <c>tags[]</c>, <c>lines[].sku</c>. Names are matched
/// exactly (case-sensitive, after unescaping) and may not contain '.', '[' or ']'. A path with
/// <c>[]</c> is multikey: a document gives one index entry per element. SQLite's form with a
/// leading <c>$.</c> (<c>$.address.city</c>) is the same path: its canonical text drops the <c>$.</c>.
/// </summary>
internal sealed class JsonPath : IEquatable<JsonPath>
{
    public const int MaxLength = 256;

    private JsonPath(string text, JsonPathSegment[] segments)
    {
        Text = text;
        Segments = segments;
        IsMultikey = segments.Any(s => s.IsEach);
    }

    /// <summary>The canonical text of the path.</summary>
    public string Text { get; }

    public IReadOnlyList<JsonPathSegment> Segments { get; }

    public bool IsMultikey { get; }

    /// <summary>Parses a path, throwing <see cref="ArgumentException"/> that says what is wrong.</summary>
    public static JsonPath Parse(string text, string? paramName = null)
    {
        ArgumentNullException.ThrowIfNull(text, paramName);
        if (text.StartsWith("$.", StringComparison.Ordinal))
        {
            text = text[2..]; // SQLite's JSON path form ('$.customer'), as voron_docs columns write it
        }

        if (text.Length is 0 or > MaxLength)
        {
            throw new ArgumentException($"A JSON path is 1 to {MaxLength} characters; got {text.Length}.", paramName);
        }

        var segments = new List<JsonPathSegment>();
        foreach (var part in text.Split('.'))
        {
            var name = part;
            var each = 0;
            while (name.EndsWith("[]", StringComparison.Ordinal))
            {
                name = name[..^2];
                each++;
            }

            if (name.Length == 0 || name.AsSpan().IndexOfAny("[]") >= 0 || name.Any(char.IsControl))
            {
                throw new ArgumentException($"JSON path '{text}' is not valid: each part is a property name (no '.', '[', ']' or control characters), optionally followed by '[]' for the elements of an array.", paramName);
            }

            segments.Add(JsonPathSegment.Property(name));
            for (var i = 0; i < each; i++)
            {
                segments.Add(JsonPathSegment.Each);
            }
        }

        return new JsonPath(text, [.. segments]);
    }

    public bool Equals(JsonPath? other) => other is not null && string.Equals(Text, other.Text, StringComparison.Ordinal);

    public override bool Equals(object? obj) => Equals(obj as JsonPath);

    public static bool operator ==(JsonPath? left, JsonPath? right) => left is null ? right is null : left.Equals(right);

    public static bool operator !=(JsonPath? left, JsonPath? right) => !(left == right);

    public override int GetHashCode() => StringComparer.Ordinal.GetHashCode(Text);

    public override string ToString() => Text;
}
