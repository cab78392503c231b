namespace Voron.Documents;

/// <summary>
/// A document, id or index key is past one of the documented limits (<see cref="DocumentLimits"/>,
/// <see cref="DocumentStoreOptions.MaxDocumentBytes"/>). Nothing of the call that threw, or of
/// the session being saved, was stored.
/// </summary>
public sealed class DocumentLimitException : ArgumentException
{
    /// <summary>
    /// <paramref name="actual"/> is past <paramref name="maximum"/> for <paramref name="limit"/>
    /// (see <see cref="Limit"/>); <paramref name="message"/> says it to a person, and
    /// <paramref name="paramName"/> names the argument, when one was at fault.
    /// </summary>
    public DocumentLimitException(string limit, long actual, long maximum, string message, string? paramName = null)
        : base(message, paramName)
    {
        Limit = limit;
        Actual = actual;
        Maximum = maximum;
    }

    /// <summary>Which limit: <c>id</c>, <c>document</c>, <c>index key</c>, <c>index entries</c>, <c>collection</c> or <c>index name</c>.</summary>
    public string Limit { get; }

    /// <summary>The size that was refused, in bytes (entries, for <c>index entries</c>).</summary>
    public long Actual { get; }

    /// <summary>The most allowed.</summary>
    public long Maximum { get; }
}
