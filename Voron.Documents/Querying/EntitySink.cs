using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Serialization;
using Voron.Documents.Sessions;

namespace Voron.Documents.Querying;

/// <summary>
/// Turns each result of a typed query into its entity while the cursor holds the record, so the
/// JSON is deserialized from the page itself (<see cref="IQueryResultSink"/>); one per query run.
/// </summary>
internal sealed class EntitySink<T>(DocumentSession session, DocumentType type, JsonTypeInfo<T> typeInfo) : IQueryResultSink
    where T : class
{
    /// <summary>The entity of the last result taken.</summary>
    public T? Current { get; private set; }

    public void Take(QueryCursor cursor, ReadOnlySpan<byte> json) => Current = session.Materialize(cursor, json, type, typeInfo);
}
