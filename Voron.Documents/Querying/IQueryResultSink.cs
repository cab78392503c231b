namespace Voron.Documents.Querying;

/// <summary>
/// Receives each result of a <see cref="QueryCursor"/> while its record is at hand: the JSON span
/// is the record's own body on the page when it is stored plain (no copy), or the cursor's decode
/// buffer when compressed. It is valid only during the call; the read transaction is open then
/// (the cursor runs inside it, I6), so the page it points into cannot change or be reused.
/// </summary>
internal interface IQueryResultSink
{
    void Take(QueryCursor cursor, ReadOnlySpan<byte> json);
}
