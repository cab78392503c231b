using System.CommandLine;
using System.CommandLine.Parsing;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Makers of experiment options that may also come from an environment variable (the option wins),
/// with errors that name the option or the variable and the bad value.
/// </summary>
internal static class ExperimentOptions
{
    /// <summary>A positive whole number: <c>--name N</c>, else the variable <paramref name="variable"/>, else null (the experiment's default).</summary>
    public static Option<int?> PositiveNumber(string name, string variable, string description) => new(name)
    {
        Description = $"{description} (or the environment variable {variable})",
        HelpName = "N",
        CustomParser = result => ParsePositive(result, result.Tokens[0].Value, name),
        DefaultValueFactory = result => Environment.GetEnvironmentVariable(variable) is { Length: > 0 } text ? ParsePositive(result, text, variable) : null,
    };

    /// <summary>
    /// A list, <c>--name 1,2,3</c>, else the variable <paramref name="variable"/>, else null; each
    /// text is read by <paramref name="parse"/>, which throws <see cref="ArgumentException"/> naming
    /// its source (the option or the variable) for a bad list.
    /// </summary>
    public static Option<int[]?> List(string name, string variable, string description, Func<string?, string, int[]?> parse) => new(name)
    {
        Description = $"{description} (or the environment variable {variable})",
        HelpName = "LIST",
        CustomParser = result => Parse(result, result.Tokens[0].Value, name, parse),
        DefaultValueFactory = result => Parse(result, Environment.GetEnvironmentVariable(variable), variable, parse),
    };

    /// <summary>
    /// Names from <paramref name="allowed"/>, <c>--name a,b</c>, else the variable
    /// <paramref name="variable"/>, else null (all); an unknown name is an error naming the choices.
    /// </summary>
    public static Option<string[]?> Names(string name, string variable, string description, string[] allowed) => new(name)
    {
        Description = $"{description}: {string.Join(", ", allowed)} (or the environment variable {variable})",
        HelpName = "LIST",
        CustomParser = result => ParseNames(result, result.Tokens[0].Value, name, allowed),
        DefaultValueFactory = result => Environment.GetEnvironmentVariable(variable) is { Length: > 0 } text ? ParseNames(result, text, variable, allowed) : null,
    };

    /// <summary>
    /// A switch: <c>--name</c>, else true when the variable <paramref name="variable"/> is <c>1</c>
    /// or <c>true</c>.
    /// </summary>
    public static Option<bool> Switch(string name, string variable, string description) => new(name)
    {
        Description = $"{description} (or the environment variable {variable}=1)",
        DefaultValueFactory = _ => Environment.GetEnvironmentVariable(variable) is "1" or "true",
    };

    /// <summary>Text (a path, a connection string): <c>--name TEXT</c>, else the variable <paramref name="variable"/>, else null (the experiment's default).</summary>
    public static Option<string?> Text(string name, string variable, string description, string helpName) => new(name)
    {
        Description = $"{description} (or the environment variable {variable})",
        HelpName = helpName,
        DefaultValueFactory = _ => Environment.GetEnvironmentVariable(variable) is { Length: > 0 } text ? text : null,
    };

    /// <summary>
    /// Milliseconds, 0 to <paramref name="max"/>, fractions allowed: <c>--name MS</c>; null (none)
    /// when the option is not given.
    /// </summary>
    public static Option<double?> Milliseconds(string name, string description, double max) => new(name)
    {
        Description = description,
        HelpName = "MS",
        CustomParser = result =>
        {
            var text = result.Tokens[0].Value;
            if (double.TryParse(text, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value) && value >= 0 && value <= max)
            {
                return value;
            }

            result.AddError($"{name} must be a number of milliseconds from 0 to {max.ToString(CultureInfo.InvariantCulture)}, not '{text}'.");
            return null;
        },
    };

    /// <summary>
    /// Seconds, fractions allowed, more than 0 and at most <paramref name="max"/>: <c>--name S</c>,
    /// else the variable <paramref name="variable"/>, else null (the experiment's default).
    /// </summary>
    public static Option<double?> Seconds(string name, string variable, string description, double max) => new(name)
    {
        Description = $"{description} (or the environment variable {variable})",
        HelpName = "SECONDS",
        CustomParser = result => ParseSeconds(result, result.Tokens[0].Value, name, max),
        DefaultValueFactory = result => Environment.GetEnvironmentVariable(variable) is { Length: > 0 } text ? ParseSeconds(result, text, variable, max) : null,
    };

    private static double? ParseSeconds(ArgumentResult result, string text, string source, double max)
    {
        if (double.TryParse(text, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value) && value > 0 && value <= max)
        {
            return value;
        }

        result.AddError($"{source} must be a number of seconds more than 0 and at most {max.ToString(CultureInfo.InvariantCulture)}, not '{text}'.");
        return null;
    }

    private static string[]? ParseNames(ArgumentResult result, string text, string source, string[] allowed)
    {
        var names = text.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
        var unknown = names.FirstOrDefault(n => !allowed.Contains(n, StringComparer.Ordinal));
        if (names.Length == 0 || unknown != null)
        {
            result.AddError($"{source} must list names from {string.Join(", ", allowed)} separated by commas, not '{text}'.");
            return null;
        }

        return names;
    }

    private static int? ParsePositive(ArgumentResult result, string text, string source)
    {
        if (int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var value) && value > 0)
        {
            return value;
        }

        result.AddError($"{source} must be a positive whole number, not '{text}'.");
        return null;
    }

    private static int[]? Parse(ArgumentResult result, string? text, string source, Func<string?, string, int[]?> parse)
    {
        try
        {
            return parse(text, source);
        }
        catch (ArgumentException error)
        {
            result.AddError(error.Message);
            return null;
        }
    }
}
