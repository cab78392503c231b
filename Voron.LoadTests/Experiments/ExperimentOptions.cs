using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;

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
