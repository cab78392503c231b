using System.Diagnostics.CodeAnalysis;
using System.Linq.Expressions;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;

namespace Voron.Documents;

/// <summary>
/// Conveniences without a <see cref="JsonTypeInfo{T}"/>: the metadata comes from reflection over
/// the document type <c>T</c> (with <see cref="DocumentStoreOptions.SerializerOptions"/>, default web
/// defaults). Not for trimmed or Native AOT apps — there, pass the source-generated
/// <c>JsonTypeInfo</c> (<c>MyJsonContext.Default.User</c>) to the session's own methods.
/// </summary>
public static class DocumentSessionExtensions
{
    private const string Reason = "Uses reflection-based System.Text.Json metadata for T. For trimming and Native AOT, pass a source-generated JsonTypeInfo<T> instead.";

    /// <inheritdoc cref="IAsyncDocumentSession.Store{T}(T, JsonTypeInfo{T}, string?, long?)"/>
    [RequiresUnreferencedCode(Reason)]
    [RequiresDynamicCode(Reason)]
    public static void Store<T>(this IAsyncDocumentSession session, T entity, string? id = null, long? expectedVersion = null) where T : class
    {
        ArgumentNullException.ThrowIfNull(session);
        session.Store(entity, TypeInfo<T>(session.DocumentStore), id, expectedVersion);
    }

    /// <inheritdoc cref="IAsyncDocumentSession.LoadAsync{T}(string, JsonTypeInfo{T}, CancellationToken)"/>
    [RequiresUnreferencedCode(Reason)]
    [RequiresDynamicCode(Reason)]
    public static Task<T?> LoadAsync<T>(this IAsyncDocumentSession session, string id, CancellationToken cancellationToken = default) where T : class
    {
        ArgumentNullException.ThrowIfNull(session);
        return session.LoadAsync(id, TypeInfo<T>(session.DocumentStore), cancellationToken);
    }

    /// <inheritdoc cref="IAsyncDocumentSession.LoadAsync{T}(IEnumerable{string}, JsonTypeInfo{T}, CancellationToken)"/>
    [RequiresUnreferencedCode(Reason)]
    [RequiresDynamicCode(Reason)]
    public static Task<IReadOnlyDictionary<string, T?>> LoadAsync<T>(this IAsyncDocumentSession session, IEnumerable<string> ids, CancellationToken cancellationToken = default) where T : class
    {
        ArgumentNullException.ThrowIfNull(session);
        return session.LoadAsync(ids, TypeInfo<T>(session.DocumentStore), cancellationToken);
    }

    /// <inheritdoc cref="IAsyncDocumentSession.Query{T}(JsonTypeInfo{T})"/>
    [RequiresUnreferencedCode(Reason)]
    [RequiresDynamicCode(Reason)]
    public static IDocumentQuery<T> Query<T>(this IAsyncDocumentSession session) where T : class
    {
        ArgumentNullException.ThrowIfNull(session);
        return session.Query(TypeInfo<T>(session.DocumentStore));
    }

    /// <inheritdoc cref="DocumentStore.BulkInsertAsync{T}(IEnumerable{T}, JsonTypeInfo{T}, IProgress{long}?, CancellationToken)"/>
    [RequiresUnreferencedCode(Reason)]
    [RequiresDynamicCode(Reason)]
    public static Task<long> BulkInsertAsync<T>(this DocumentStore store, IEnumerable<T> documents, IProgress<long>? progress = null, CancellationToken cancellationToken = default) where T : class
    {
        ArgumentNullException.ThrowIfNull(store);
        return store.BulkInsertAsync(documents, TypeInfo<T>(store), progress, cancellationToken);
    }

    /// <summary>An index on members of <typeparamref name="T"/> (<see cref="IndexDefinition.For{T}"/>), with reflection-based metadata.</summary>
    [RequiresUnreferencedCode(Reason)]
    [RequiresDynamicCode(Reason)]
    public static IndexDefinition IndexFor<T>(this DocumentStore store, string name, params Expression<Func<T, object?>>[] members)
    {
        ArgumentNullException.ThrowIfNull(store);
        return IndexDefinition.For(TypeInfo<T>(store), name, members);
    }

    [RequiresUnreferencedCode(Reason)]
    [RequiresDynamicCode(Reason)]
    private static JsonTypeInfo<T> TypeInfo<T>(DocumentStore store) => (JsonTypeInfo<T>)store.ReflectionOptions.GetTypeInfo(typeof(T));
}
