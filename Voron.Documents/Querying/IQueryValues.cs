using System.Linq.Expressions;

namespace Voron.Documents.Querying;

/// <summary>The values of a query expression's parts that do not involve the document: evaluated now, or those of the call a cached translation replays for.</summary>
internal interface IQueryValues
{
    /// <summary>The value of <paramref name="node"/>, a part of the expression the translation was recorded on.</summary>
    object? Value(Expression node);
}
