using System.Linq.Expressions;
using System.Reflection;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;

namespace Voron.Documents.Serialization;

/// <summary>
/// Turns member expressions (<c>u =&gt; u.Address.City</c>, <c>o =&gt; o.Lines.Select(l =&gt; l.Sku)</c>)
/// into the JSON paths the serializer writes those members at, using only the
/// <see cref="JsonTypeInfo"/> metadata (no reflection over the types themselves, so it works
/// with source generation and Native AOT). Nothing is compiled or invoked.
/// </summary>
internal static class MemberPaths
{
    /// <summary>
    /// Resolves <paramref name="expression"/>, a member chain of <paramref name="parameter"/>, or
    /// returns null when it is not one. Throws <see cref="NotSupportedException"/> for a member
    /// the serializer does not write.
    /// </summary>
    public static MemberPath? TryResolve(Expression expression, ParameterExpression parameter, JsonTypeInfo root)
    {
        expression = StripConvert(expression);
        if (expression is MethodCallExpression { Method.Name: "Select", Method.DeclaringType: { } declaring } select &&
            declaring == typeof(Enumerable) && select.Arguments.Count == 2 &&
            StripQuote(select.Arguments[1]) is LambdaExpression { Parameters.Count: 1 } inner)
        {
            // o => o.Lines.Select(l => l.Sku): each element's member
            var source = TryResolve(select.Arguments[0], parameter, root);
            if (source is not { IsCollection: true })
            {
                return null;
            }

            var element = TryResolve(inner.Body, inner.Parameters[0], source.ElementTypeInfo!)
                ?? throw new NotSupportedException($"'{inner}' is not a member of the elements; write l => l.Member.");
            return element with { Path = source.Path + "[]." + element.Path, IsId = false };
        }

        var chain = new List<MemberInfo>();
        var current = expression;
        while (current is MemberExpression member)
        {
            chain.Add(member.Member);
            current = StripConvert(member.Expression!);
        }

        if (current != parameter || chain.Count == 0)
        {
            return null;
        }

        chain.Reverse();
        var typeInfo = root;
        var path = new List<string>();
        var isId = false;
        JsonTypeInfo? elementTypeInfo = null;
        for (var i = 0; i < chain.Count; i++)
        {
            if (elementTypeInfo != null || typeInfo.Kind != JsonTypeInfoKind.Object)
            {
                throw new NotSupportedException($"'{expression}': '{chain[i - 1].Name}' is not serialized as a JSON object, so '{chain[i].Name}' has no JSON path.");
            }

            var property = FindProperty(typeInfo, chain[i]) ?? throw new NotSupportedException(
                $"'{expression}': member '{chain[i].Name}' of {typeInfo.Type.Name} is not serialized (ignored, or not public), so it has no JSON path to index or query.");
            isId = i == 0 && DocumentType.IsIdProperty(property);
            path.Add(property.Name);
            typeInfo = property.Options.GetTypeInfo(property.PropertyType);
            if (typeInfo.Kind == JsonTypeInfoKind.Enumerable && typeInfo.ElementType is { } elementType)
            {
                elementTypeInfo = typeInfo.Options.GetTypeInfo(elementType);
            }
        }

        return new MemberPath(string.Join('.', path), typeInfo.Type, typeInfo, isId && chain.Count == 1, elementTypeInfo);
    }

    /// <summary>The serialized property for a CLR member: by the member itself, else by the JSON name it would get.</summary>
    private static JsonPropertyInfo? FindProperty(JsonTypeInfo typeInfo, MemberInfo member)
    {
        foreach (var property in typeInfo.Properties)
        {
            if (property.AttributeProvider is MemberInfo provider && provider.Name == member.Name &&
                (provider.DeclaringType == member.DeclaringType || provider.DeclaringType?.IsAssignableFrom(member.DeclaringType) == true ||
                 member.DeclaringType?.IsAssignableFrom(provider.DeclaringType) == true))
            {
                return property;
            }
        }

        var name = member.GetCustomAttribute<JsonPropertyNameAttribute>()?.Name ??
                   typeInfo.Options.PropertyNamingPolicy?.ConvertName(member.Name) ?? member.Name;
        var comparison = typeInfo.Options.PropertyNameCaseInsensitive ? StringComparison.OrdinalIgnoreCase : StringComparison.Ordinal;
        return typeInfo.Properties.FirstOrDefault(p => string.Equals(p.Name, name, comparison) && p.AttributeProvider is not MemberInfo);
    }

    public static Expression StripConvert(Expression expression)
    {
        while (expression is UnaryExpression { NodeType: ExpressionType.Convert or ExpressionType.ConvertChecked or ExpressionType.TypeAs } unary)
        {
            expression = unary.Operand;
        }

        return expression;
    }

    public static Expression StripQuote(Expression expression) =>
        expression is UnaryExpression { NodeType: ExpressionType.Quote } quote ? quote.Operand : expression;

    /// <summary>The JSON metadata options a path's constants are serialized with.</summary>
    public static JsonSerializerOptions OptionsOf(MemberPath member) => member.TypeInfo.Options;
}
