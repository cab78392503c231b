using System.Linq.Expressions;
using System.Text;
using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Indexing;
using Voron.Documents.Serialization;

namespace Voron.Documents.Querying;

/// <summary>
/// Translates the LINQ subset (IDocumentQuery's remarks list it) into <see cref="QueryCondition"/>s
/// and <see cref="QueryOrder"/>s over JSON paths. Anything outside the subset throws
/// <see cref="NotSupportedException"/> saying what to write instead.
/// </summary>
internal static class ExpressionTranslator
{
    public static List<QueryCondition> Conditions(LambdaExpression predicate, JsonTypeInfo root) => Conditions(predicate, root, null);

    /// <summary>
    /// Translates <paramref name="predicate"/>; with a <paramref name="recording"/>, also records how
    /// (QC1 in TranslationCache.cs): each condition as a step over the values it read, and each value
    /// the translation branched on.
    /// </summary>
    internal static List<QueryCondition> Conditions(LambdaExpression predicate, JsonTypeInfo root, TranslationRecording? recording)
    {
        ArgumentNullException.ThrowIfNull(predicate);
        var conditions = new Builder(recording);
        Visit(predicate.Body, predicate.Parameters[0], root, conditions);
        return conditions.Results;
    }

    /// <summary>Collects the conditions; each is built by a step that reads values only through its <see cref="IQueryValues"/>.</summary>
    private sealed class Builder(TranslationRecording? recording) : IQueryValues
    {
        public List<QueryCondition> Results { get; } = [];

        public void Add(Func<IQueryValues, QueryCondition> step)
        {
            recording?.Steps.Add(step);
            Results.Add(step(this));
        }

        /// <summary>A value the translation branches on: the replay must see the same one.</summary>
        public object? Guard(Expression node)
        {
            var value = Value(node);
            recording?.Guards.Add((node, value));
            return value;
        }

        public object? Value(Expression node)
        {
            recording?.Read(node);
            return ExpressionEvaluator.Evaluate(node);
        }
    }

    public static QueryOrder Order(LambdaExpression key, JsonTypeInfo root, bool descending)
    {
        ArgumentNullException.ThrowIfNull(key);
        var member = MemberPaths.TryResolve(key.Body, key.Parameters[0], root)
            ?? throw new NotSupportedException($"OrderBy({key}): order by a member of the document (x => x.Member).");
        if (member.IsCollection)
        {
            throw new NotSupportedException($"OrderBy({key}): '{member.Path}' is a collection; order by a single value.");
        }

        return new QueryOrder(member.IsId ? null : JsonPath.Parse(member.Path), descending, member.IsId ? "id" : member.Path);
    }

    private static void Visit(Expression expression, ParameterExpression parameter, JsonTypeInfo root, Builder into)
    {
        switch (expression)
        {
            case BinaryExpression { NodeType: ExpressionType.AndAlso } and:
                Visit(and.Left, parameter, root, into);
                Visit(and.Right, parameter, root, into);
                return;
            case BinaryExpression { NodeType: ExpressionType.OrElse }:
                throw new NotSupportedException($"'{expression}': || is not supported (an index serves one range); run one query per alternative.");
            case BinaryExpression binary when Kind(binary.NodeType) is { } kind:
                Comparison(binary, kind, parameter, root, into);
                return;
            case UnaryExpression { NodeType: ExpressionType.Not } not when MemberPaths.TryResolve(not.Operand, parameter, root) is { } negated && negated.ClrType == typeof(bool):
                into.Add(_ => Condition(negated, ConditionKind.Equal, false, not.ToString()));
                return;
            case MemberExpression when expression.Type == typeof(bool) && MemberPaths.TryResolve(expression, parameter, root) is { } flag:
                into.Add(_ => Condition(flag, ConditionKind.Equal, true, expression.ToString()));
                return;
            case MethodCallExpression call:
                MethodCall(call, parameter, root, into);
                return;
            case ConstantExpression constant when into.Guard(constant) is true:
                return;
            default:
                throw new NotSupportedException($"'{expression}' is not in the query subset: use ==, !=, <, <=, >, >= between a member and a value, joined by &&, StartsWith on strings and Contains on collections.");
        }
    }

    private static ConditionKind? Kind(ExpressionType type) => type switch
    {
        ExpressionType.Equal => ConditionKind.Equal,
        ExpressionType.NotEqual => ConditionKind.NotEqual,
        ExpressionType.LessThan => ConditionKind.LessThan,
        ExpressionType.LessThanOrEqual => ConditionKind.LessThanOrEqual,
        ExpressionType.GreaterThan => ConditionKind.GreaterThan,
        ExpressionType.GreaterThanOrEqual => ConditionKind.GreaterThanOrEqual,
        _ => null,
    };

    private static ConditionKind Flip(ConditionKind kind) => kind switch
    {
        ConditionKind.LessThan => ConditionKind.GreaterThan,
        ConditionKind.LessThanOrEqual => ConditionKind.GreaterThanOrEqual,
        ConditionKind.GreaterThan => ConditionKind.LessThan,
        ConditionKind.GreaterThanOrEqual => ConditionKind.LessThanOrEqual,
        _ => kind,
    };

    private static void Comparison(BinaryExpression binary, ConditionKind kind, ParameterExpression parameter, JsonTypeInfo root, Builder into)
    {
        var (side, other, flipped) = ExpressionEvaluator.IsIndependentOf(binary.Right, parameter)
            ? (binary.Left, binary.Right, false)
            : (binary.Right, binary.Left, true);
        if (!ExpressionEvaluator.IsIndependentOf(other, parameter))
        {
            throw new NotSupportedException($"'{binary}': compare a member with a value; comparing two members of the document is not supported.");
        }

        if (flipped)
        {
            kind = Flip(kind);
        }

        // string.CompareOrdinal(member, value) op 0
        if (MemberPaths.StripConvert(side) is MethodCallExpression { Method.Name: "CompareOrdinal", Method.DeclaringType: { } type, Arguments.Count: 2 } compare &&
            type == typeof(string) && into.Guard(other) is 0)
        {
            var (member, value, swapped) = ExpressionEvaluator.IsIndependentOf(compare.Arguments[1], parameter)
                ? (compare.Arguments[0], compare.Arguments[1], false)
                : (compare.Arguments[1], compare.Arguments[0], true);
            var resolved = Resolve(member, parameter, root, binary);
            var compared = swapped ? Flip(kind) : kind;
            into.Add(values => Condition(resolved, compared, values.Value(value), binary.ToString()));
            return;
        }

        var path = Resolve(side, parameter, root, binary);
        if (path.IsCollection)
        {
            throw new NotSupportedException($"'{binary}': '{path.Path}' is a collection; use {path.Path}.Contains(value) to match an element.");
        }

        into.Add(values => Condition(path, kind, values.Value(other), binary.ToString(), side, other.Type));
    }

    private static void MethodCall(MethodCallExpression call, ParameterExpression parameter, JsonTypeInfo root, Builder into)
    {
        var method = call.Method;
        if (method.Name == "StartsWith" && method.DeclaringType == typeof(string) && call.Object != null)
        {
            if (call.Arguments.Count == 2 && into.Guard(call.Arguments[1]) is not StringComparison.Ordinal)
            {
                throw new NotSupportedException($"'{call}': StartsWith compares ordinally here; pass StringComparison.Ordinal or no comparison.");
            }

            var member = Resolve(call.Object, parameter, root, call);
            var argument = call.Arguments[0];
            into.Add(values =>
            {
                var prefix = values.Value(argument) switch
                {
                    string text => text,
                    char c => c.ToString(),
                    var other => throw new NotSupportedException($"'{call}': the prefix must be a string, not {other?.GetType().Name ?? "null"}."),
                };
                return StartsWith(member, prefix, call.ToString());
            });
            return;
        }

        // member.Contains(value) on a collection member, or Enumerable.Contains(member, value)
        Expression? source = null;
        Expression? item = null;
        if (method.Name == "Contains" && call.Object != null && call.Arguments.Count == 1)
        {
            (source, item) = (call.Object, call.Arguments[0]);
        }
        else if (method.Name == "Contains" && method.DeclaringType == typeof(Enumerable) && call.Arguments.Count == 2)
        {
            (source, item) = (call.Arguments[0], call.Arguments[1]);
        }

        if (source != null && item != null && !ExpressionEvaluator.IsIndependentOf(source, parameter) && ExpressionEvaluator.IsIndependentOf(item, parameter))
        {
            var member = Resolve(source, parameter, root, call);
            if (!member.IsCollection)
            {
                throw new NotSupportedException($"'{call}': Contains matches an element of a collection member; '{member.Path}' is not a collection (for strings, use StartsWith).");
            }

            var path = member.Path.EndsWith("[]", StringComparison.Ordinal) ? member.Path : member.Path + "[]";
            var element = item;
            into.Add(values =>
            {
                var value = ConstantEncoder.Encode(values.Value(element), member.ElementTypeInfo!, path);
                return new QueryCondition(JsonPath.Parse(path), ConditionKind.Equal, value, $"{path} contains {IndexKey.Describe(value)}");
            });
            return;
        }

        if (source != null && ExpressionEvaluator.IsIndependentOf(source, parameter))
        {
            throw new NotSupportedException($"'{call}': a list of values containing a member (an IN query) is not supported; run one query per value.");
        }

        throw new NotSupportedException($"'{call}' is not in the query subset: the methods supported are StartsWith (strings), Contains (collection members) and string.CompareOrdinal(member, value) compared with 0.");
    }

    private static MemberPath Resolve(Expression expression, ParameterExpression parameter, JsonTypeInfo root, Expression whole) =>
        MemberPaths.TryResolve(expression, parameter, root)
        ?? throw new NotSupportedException($"'{whole}': '{expression}' is not a member of the document; conditions compare a member (x.Member, x.Member.Inner) with a value.");

    private static QueryCondition Condition(MemberPath member, ConditionKind kind, object? value, string display, Expression? side = null, Type? comparedAs = null)
    {
        if (member.IsId)
        {
            if (value is not string id)
            {
                throw new NotSupportedException($"'{display}': compare the id with a string.");
            }

            return new QueryCondition(null, kind, Encoding.UTF8.GetBytes(id), $"id {Symbol(kind)} \"{id}\"");
        }

        if (value != null && side != null && comparedAs != null && Numeric(member, kind, value, display, side, comparedAs) is { } numeric)
        {
            return numeric;
        }

        var encoded = ConstantEncoder.Encode(value, member.TypeInfo, member.Path);
        if (kind is not (ConditionKind.Equal or ConditionKind.NotEqual) && encoded[0] == IndexKey.Null)
        {
            throw new NotSupportedException($"'{display}': a range with null matches nothing; compare null with == only.");
        }

        var memberType = Nullable.GetUnderlyingType(member.ClrType) ?? member.ClrType;
        if (kind is not (ConditionKind.Equal or ConditionKind.NotEqual) && memberType.IsEnum && encoded[0] == IndexKey.String)
        {
            // C# orders enums by their numbers; the documents hold names, which order otherwise.
            throw new NotSupportedException($"'{display}': '{member.Path}' is stored as its name, and names do not sort as the enum's values; compare it with == (or store the enum as a number for ranges).");
        }

        return new QueryCondition(JsonPath.Parse(member.Path), kind, encoded, $"{member.Path} {Symbol(kind)} {IndexKey.Describe(encoded)}");
    }

    /// <summary>
    /// A numeric member compared with a number (NC1..NC3 in NumericComparison.cs): compared in the
    /// type C# compares them in, never with the constant converted to the member's type. Null when
    /// the member or the comparison is not numeric (the constant is then encoded as the member's).
    /// </summary>
    private static QueryCondition? Numeric(MemberPath member, ConditionKind kind, object value, string display, Expression side, Type comparedAs)
    {
        var memberType = Nullable.GetUnderlyingType(member.ClrType) ?? member.ClrType;
        var target = Nullable.GetUnderlyingType(comparedAs) ?? comparedAs;
        if (!NumericComparison.IsNumeric(memberType) || !NumericComparison.IsNumeric(target))
        {
            return null;
        }

        // NC1: only widening conversions between the member and the comparison.
        for (var node = side; node is UnaryExpression { NodeType: ExpressionType.Convert or ExpressionType.ConvertChecked } convert; node = convert.Operand)
        {
            var from = Nullable.GetUnderlyingType(convert.Operand.Type) ?? convert.Operand.Type;
            var to = Nullable.GetUnderlyingType(convert.Type) ?? convert.Type;
            if (NumericComparison.IsNumeric(from) && NumericComparison.IsNumeric(to) && !NumericComparison.IsImplicit(from, to))
            {
                throw new NotSupportedException($"'{display}': the member is converted from {from.Name} to {to.Name}, which can change its value; compare the member itself with a value of its type or a wider one.");
            }
        }

        if (!NumericComparison.IsImplicit(memberType, target))
        {
            throw new NotSupportedException($"'{display}': '{member.Path}' ({memberType.Name}) is compared as {target.Name}, which can change its value; compare the member itself with a value of its type or a wider one.");
        }

        var constant = ExpressionEvaluator.ConvertTo(value, target)!;
        return NumericComparison.TryCreate(JsonPath.Parse(member.Path), memberType, target, constant, kind);
    }

    internal static QueryCondition StartsWith(MemberPath member, string prefix, string display)
    {
        var utf8 = Encoding.UTF8.GetBytes(prefix);
        if (member.IsId)
        {
            return new QueryCondition(null, ConditionKind.StartsWith, utf8, $"id starts with \"{prefix}\"");
        }

        if (member.ClrType != typeof(string))
        {
            throw new NotSupportedException($"'{display}': StartsWith applies to string members; '{member.Path}' is {member.ClrType.Name}.");
        }

        var key = new KeyBuilder();
        IndexKey.EncodeStringPrefix(utf8, key);
        return new QueryCondition(JsonPath.Parse(member.Path), ConditionKind.StartsWith, key.ToArray(), $"{member.Path} starts with \"{prefix}\"");
    }

    internal static string Symbol(ConditionKind kind) => kind switch
    {
        ConditionKind.Equal => "==",
        ConditionKind.LessThan => "<",
        ConditionKind.LessThanOrEqual => "<=",
        ConditionKind.GreaterThan => ">",
        ConditionKind.GreaterThanOrEqual => ">=",
        ConditionKind.NotEqual => "!=",
        _ => "starts with",
    };
}
