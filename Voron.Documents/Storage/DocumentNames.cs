using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Unicode;

namespace Voron.Documents.Storage;

/// <summary>Validation and encoding of document ids, collection names and index names (their limits: <see cref="DocumentLimits"/>).</summary>
internal static class DocumentNames
{
    /// <summary>The UTF-8 bytes of a valid id: 1 to <see cref="DocumentLimits.MaxIdBytes"/> bytes of well-formed UTF-16 (no lone surrogates).</summary>
    public static byte[] IdBytes(string id, string paramName = "id")
    {
        ArgumentNullException.ThrowIfNull(id, paramName);
        if (id.Length == 0)
        {
            throw new ArgumentException("A document id may not be empty.", paramName);
        }

        var bytes = Utf8OrThrow(id, paramName, "document id");
        if (bytes.Length > DocumentLimits.MaxIdBytes)
        {
            throw new DocumentLimitException("id", bytes.Length, DocumentLimits.MaxIdBytes,
                $"Document id '{id[..Math.Min(id.Length, 40)]}...' is {bytes.Length} UTF-8 bytes; ids are at most {DocumentLimits.MaxIdBytes}.", paramName);
        }

        return bytes;
    }

    /// <summary>The UTF-8 bytes of a valid collection name: 1 to 128 bytes, no '/', no control characters.</summary>
    public static byte[] CollectionBytes(string collection, string paramName = "collection")
    {
        ArgumentNullException.ThrowIfNull(collection, paramName);
        if (collection.Length == 0 || collection.Contains('/', StringComparison.Ordinal) || collection.Any(char.IsControl))
        {
            throw new ArgumentException($"Collection name '{collection}' is not valid: it must be non-empty, without '/' or control characters.", paramName);
        }

        var bytes = Utf8OrThrow(collection, paramName, "collection name");
        if (bytes.Length > DocumentLimits.MaxCollectionNameBytes)
        {
            throw new DocumentLimitException("collection", bytes.Length, DocumentLimits.MaxCollectionNameBytes,
                $"Collection name '{collection}' is {bytes.Length} UTF-8 bytes; collection names are at most {DocumentLimits.MaxCollectionNameBytes}.", paramName);
        }

        return bytes;
    }

    /// <summary>Checks an index name: 1 to 64 bytes of ASCII letters, digits, '_', '-' and '.'.</summary>
    public static void ValidateIndexName(string name, string paramName = "name")
    {
        ArgumentNullException.ThrowIfNull(name, paramName);
        if (name.Length > DocumentLimits.MaxIndexNameBytes)
        {
            throw new DocumentLimitException("index name", name.Length, DocumentLimits.MaxIndexNameBytes,
                $"Index name '{name}' is {name.Length} characters; index names are at most {DocumentLimits.MaxIndexNameBytes}.", paramName);
        }

        if (name.Length == 0 || !name.All(c => char.IsAsciiLetterOrDigit(c) || c is '_' or '-' or '.'))
        {
            throw new ArgumentException($"Index name '{name}' is not valid: use 1 to {DocumentLimits.MaxIndexNameBytes} ASCII letters, digits, '_', '-' or '.'.", paramName);
        }
    }

    /// <summary>The id generated as number <paramref name="n"/> of a collection: <c>&lt;collection&gt;/&lt;n&gt;</c>.</summary>
    public static string GeneratedId(string collection, long n) => collection + "/" + n.ToString(CultureInfo.InvariantCulture);

    /// <summary>Whether <paramref name="id"/> has the shape of a generated id of <paramref name="collection"/> (<c>&lt;collection&gt;/&lt;n&gt;</c>, n a positive decimal without sign or leading zero), and its n.</summary>
    public static bool TryParseGenerated(ReadOnlySpan<char> id, string collection, out long n)
    {
        n = 0;
        if (id.Length <= collection.Length + 1 || !id.StartsWith(collection, StringComparison.Ordinal) || id[collection.Length] != '/')
        {
            return false;
        }

        var digits = id[(collection.Length + 1)..];
        return digits[0] is >= '1' and <= '9' && digits.Length <= 18 && !digits.ContainsAnyExcept(Digits) &&
               long.TryParse(digits, NumberStyles.None, CultureInfo.InvariantCulture, out n);
    }

    /// <summary>
    /// Whether <paramref name="id"/> has the shape of a generated id of any collection
    /// (<c>&lt;prefix&gt;/&lt;n&gt;</c>, the prefix a valid collection name, n as in
    /// <see cref="TryParseGenerated"/>), with that prefix and n. Ids are unique across the store, so
    /// such an id raises the prefix's counter whatever collection the document is stored in (I5).
    /// </summary>
    public static bool TryParseGeneratedShape(string id, out string prefix, out long n)
    {
        prefix = "";
        n = 0;
        var slash = id.IndexOf('/', StringComparison.Ordinal);
        if (slash <= 0 || slash > DocumentLimits.MaxCollectionNameBytes)
        {
            return false;
        }

        var candidate = id[..slash];
        if (!TryParseGenerated(id, candidate, out n) || candidate.Any(char.IsControl) ||
            Encoding.UTF8.GetByteCount(candidate) > DocumentLimits.MaxCollectionNameBytes)
        {
            n = 0;
            return false;
        }

        prefix = candidate;
        return true;
    }

    private static readonly SearchValues<char> Digits = SearchValues.Create("0123456789");

    private static byte[] Utf8OrThrow(string text, string paramName, string what)
    {
        var bytes = new byte[Encoding.UTF8.GetMaxByteCount(text.Length)];
        if (Utf8.FromUtf16(text, bytes, out _, out var written, replaceInvalidSequences: false) != OperationStatus.Done)
        {
            throw new ArgumentException($"The {what} '{text}' is not well-formed UTF-16 (a lone surrogate).", paramName);
        }

        return bytes.AsSpan(0, written).ToArray();
    }
}
