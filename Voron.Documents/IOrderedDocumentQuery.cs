using System.Linq.Expressions;

namespace Voron.Documents;

/// <summary>An ordered <see cref="IDocumentQuery{T}"/>: more sort keys may follow.</summary>
public interface IOrderedDocumentQuery<T> : IDocumentQuery<T> where T : class
{
    /// <summary>Then orders by another member, ascending.</summary>
    IOrderedDocumentQuery<T> ThenBy<TKey>(Expression<Func<T, TKey>> key);

    /// <summary>Then orders by another member, descending.</summary>
    IOrderedDocumentQuery<T> ThenByDescending<TKey>(Expression<Func<T, TKey>> key);
}
