using System.Globalization;
using System.Linq.Expressions;
using System.Reflection;

namespace Voron.Documents.Querying;

/// <summary>
/// Evaluates the parts of a query expression that do not involve the document (constants,
/// captured variables, their members, calls on them), once, when the query is built. Nothing is
/// compiled (no Expression.Compile: Native AOT and trimming); members and methods are invoked
/// through the MemberInfo the expression tree already holds.
/// </summary>
internal static class ExpressionEvaluator
{
    /// <summary>Whether <paramref name="expression"/> never touches <paramref name="parameter"/>.</summary>
    public static bool IsIndependentOf(Expression expression, ParameterExpression parameter)
    {
        var finder = new ParameterFinder(parameter);
        finder.Visit(expression);
        return !finder.Found;
    }

    public static object? Evaluate(Expression expression)
    {
        switch (expression)
        {
            case ConstantExpression constant:
                return constant.Value;
            case MemberExpression member:
                {
                    var target = member.Expression == null ? null : Evaluate(member.Expression);
                    return member.Member switch
                    {
                        FieldInfo field => field.GetValue(target),
                        PropertyInfo property => property.GetValue(target),
                        _ => throw Unsupported(expression),
                    };
                }

            case UnaryExpression { NodeType: ExpressionType.Convert or ExpressionType.ConvertChecked } convert:
                return ConvertTo(Evaluate(convert.Operand), convert.Type);
            case UnaryExpression { NodeType: ExpressionType.Negate or ExpressionType.NegateChecked } negate:
                return Negate(Evaluate(negate.Operand));
            case MethodCallExpression call:
                {
                    var target = call.Object == null ? null : Evaluate(call.Object);
                    var arguments = call.Arguments.Select(Evaluate).ToArray();
                    try
                    {
                        return call.Method.Invoke(target, arguments);
                    }
                    catch (TargetInvocationException e) when (e.InnerException != null)
                    {
                        throw e.InnerException;
                    }
                }

            case NewExpression { Constructor: { } constructor } created:
                return constructor.Invoke([.. created.Arguments.Select(Evaluate)]);
            default:
                throw Unsupported(expression);
        }
    }

    /// <summary>Converts a value as C#'s conversion in the expression would (numeric widening, enums, nullables).</summary>
    public static object? ConvertTo(object? value, Type type)
    {
        if (value == null)
        {
            return null;
        }

        var target = Nullable.GetUnderlyingType(type) ?? type;
        if (target.IsInstanceOfType(value))
        {
            return value;
        }

        if (target.IsEnum)
        {
            return Enum.ToObject(target, value);
        }

        if (value is Enum)
        {
            value = System.Convert.ChangeType(value, Enum.GetUnderlyingType(value.GetType()), CultureInfo.InvariantCulture);
        }

        return value is IConvertible && typeof(IConvertible).IsAssignableFrom(target)
            ? System.Convert.ChangeType(value, target, CultureInfo.InvariantCulture)
            : value;
    }

    private static object? Negate(object? value) => value switch
    {
        null => null,
        int i => -i,
        long l => -l,
        double d => -d,
        float f => -f,
        decimal m => -m,
        short s => -s,
        sbyte b => -b,
        _ => throw new NotSupportedException($"Cannot negate a {value.GetType().Name} in a query; compute the value into a variable first."),
    };

    private static NotSupportedException Unsupported(Expression expression) =>
        new($"The query cannot evaluate '{expression}'; compute it into a local variable before the query and use the variable.");

    private sealed class ParameterFinder(ParameterExpression parameter) : ExpressionVisitor
    {
        public bool Found { get; private set; }

        protected override Expression VisitParameter(ParameterExpression node)
        {
            Found |= node == parameter;
            return node;
        }
    }
}
