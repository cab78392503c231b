using System.Linq.Expressions;

namespace Voron.Documents.Querying;

/// <summary>
/// A predicate's shape (QC2 in TranslationCache.cs): its tree with every largest part that does not
/// involve the document (a constant, a captured variable, a call on them) replaced by a slot that
/// keeps only its node type and static type. Two predicates with equal shapes differ only in the
/// values of their slots. <see cref="SlotNodes"/> are this predicate's slot parts, in tree order.
/// </summary>
internal sealed class QueryShape : IEquatable<QueryShape>
{
    private readonly (int Code, object? Ref)[] _tokens;
    private readonly int _hash;

    private QueryShape((int, object?)[] tokens, List<Expression> slots)
    {
        _tokens = tokens;
        SlotNodes = slots;
        var hash = new HashCode();
        foreach (var (code, reference) in tokens)
        {
            hash.Add(code);
            hash.Add(reference);
        }

        _hash = hash.ToHashCode();
    }

    public IReadOnlyList<Expression> SlotNodes { get; }

    /// <summary>The shape of <paramref name="predicate"/> for the document type <paramref name="root"/>, or null when it holds a node the shape does not model (such a predicate is translated each time).</summary>
    public static QueryShape? Of(LambdaExpression predicate, object root)
    {
        if (predicate.Parameters.Count != 1)
        {
            return null;
        }

        var walk = new Walk(predicate.Parameters[0]);
        walk.Tokens.Add((-1, root));
        walk.Tokens.Add((-2, predicate.Parameters[0].Type));
        walk.Visit(predicate.Body); // a body that does not involve the document becomes one slot
        return walk.Unsupported ? null : new QueryShape([.. walk.Tokens], walk.Slots);
    }

    public bool Equals(QueryShape? other)
    {
        if (other is null || other._hash != _hash || other._tokens.Length != _tokens.Length)
        {
            return false;
        }

        for (var i = 0; i < _tokens.Length; i++)
        {
            if (_tokens[i].Code != other._tokens[i].Code || !Equals(_tokens[i].Ref, other._tokens[i].Ref))
            {
                return false;
            }
        }

        return true;
    }

    public override bool Equals(object? obj) => Equals(obj as QueryShape);

    public override int GetHashCode() => _hash;

    /// <summary>One pass over the tree: a node's tokens are dropped for a slot once the node turns out not to involve the document.</summary>
    private sealed class Walk(ParameterExpression parameter)
    {
        public List<(int, object?)> Tokens { get; } = new(32);

        public List<Expression> Slots { get; } = new(4);

        public bool Unsupported { get; private set; }

        public void AddSlot(Expression node)
        {
            Tokens.Add((1000 + (int)node.NodeType, node.Type));
            Slots.Add(node);
        }

        /// <summary>Adds <paramref name="node"/>'s tokens; returns whether it involves the document.</summary>
        public bool Visit(Expression? node)
        {
            if (node == null)
            {
                Tokens.Add((0, null));
                return false;
            }

            var tokens = Tokens.Count;
            var slots = Slots.Count;
            bool depends;
            switch (node)
            {
                case ParameterExpression p:
                    depends = p == parameter;
                    Unsupported |= !depends; // a parameter of a nested lambda: not modelled
                    Tokens.Add((2, null));
                    break;
                case ConstantExpression:
                    depends = false;
                    break;
                case BinaryExpression b:
                    Tokens.Add((3000 + (int)b.NodeType + (b.IsLiftedToNull ? 500 : 0), b.Type));
                    Tokens.Add((3, b.Method));
                    depends = Visit(b.Left) | Visit(b.Right);
                    Unsupported |= b.Conversion != null && depends;
                    break;
                case UnaryExpression u:
                    Tokens.Add((4000 + (int)u.NodeType, u.Type));
                    Tokens.Add((4, u.Method));
                    depends = Visit(u.Operand);
                    break;
                case MemberExpression m:
                    Tokens.Add((5, m.Member));
                    depends = Visit(m.Expression);
                    break;
                case MethodCallExpression c:
                    Tokens.Add((6000 + c.Arguments.Count, c.Method));
                    depends = Visit(c.Object);
                    foreach (var argument in c.Arguments)
                    {
                        depends |= Visit(argument);
                    }

                    break;
                default:
                    // Other nodes are modelled only inside a slot (evaluated or refused there).
                    depends = !ExpressionEvaluator.IsIndependentOf(node, parameter);
                    Unsupported |= depends || node is LambdaExpression; // a nested lambda (l => l.Tags) is translated by its body, which a slot would not key
                    break;
            }

            if (!depends)
            {
                Tokens.RemoveRange(tokens, Tokens.Count - tokens);
                Slots.RemoveRange(slots, Slots.Count - slots);
                AddSlot(node);
            }

            return depends;
        }
    }
}
