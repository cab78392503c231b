using System.Reflection;
using System.Runtime.InteropServices;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace Voron.Tests.Readme;

/// <summary>
/// Compiles a documentation block as the top-level program a user gets by pasting it into a new
/// project's Program.cs: C# latest, nullable on, the SDK's implicit usings (the Web SDK's when the
/// block builds a <c>WebApplication</c>), references to everything this test process loads (the
/// framework, ASP.NET Core, the Voron assemblies, Dapper, Microsoft.Data.Sqlite, OpenTelemetry),
/// and System.Text.Json's source generator from the SDK's reference pack (for <c>JsonSerializerContext</c>s).
/// </summary>
internal static class SnippetCompiler
{
    private static readonly string[] ConsoleUsings =
        ["System", "System.Collections.Generic", "System.IO", "System.Linq", "System.Net.Http", "System.Threading", "System.Threading.Tasks"];

    private static readonly string[] WebUsings =
    [
        .. ConsoleUsings, "System.Net.Http.Json", "Microsoft.AspNetCore.Builder", "Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Http",
        "Microsoft.AspNetCore.Routing", "Microsoft.Extensions.Configuration", "Microsoft.Extensions.DependencyInjection",
        "Microsoft.Extensions.Hosting", "Microsoft.Extensions.Logging",
    ];

    private static readonly Lazy<MetadataReference[]> References = new(() =>
        [.. ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator)
            .Where(p => p.EndsWith(".dll", StringComparison.Ordinal) && !Path.GetFileName(p).StartsWith("Microsoft.CodeAnalysis", StringComparison.Ordinal))
            .Select(p => MetadataReference.CreateFromFile(p))]);

    private static readonly Lazy<ISourceGenerator[]> Generators = new(LoadJsonGenerator);

    /// <summary>Whether the block is an ASP.NET Core program (compiled with the Web SDK's implicit usings).</summary>
    public static bool IsWeb(string code) => code.Contains("WebApplication.", StringComparison.Ordinal);

    /// <summary>Compiles <paramref name="code"/>; returns the assembly's bytes, or throws with every error the compiler gave.</summary>
    public static byte[] Compile(string code, string name)
    {
        var parse = new CSharpParseOptions(LanguageVersion.Latest);
        var usings = string.Concat((IsWeb(code) ? WebUsings : ConsoleUsings).Select(u => $"global using global::{u};\n"));
        var compilation = CSharpCompilation.Create(
            name.Replace('/', '_').Replace('\\', '_'), // an assembly name cannot hold a path separator (docs/x.md)
            [CSharpSyntaxTree.ParseText(code, parse, path: "Program.cs"), CSharpSyntaxTree.ParseText(usings, parse, path: "GlobalUsings.g.cs")],
            References.Value,
            new CSharpCompilationOptions(OutputKind.ConsoleApplication, nullableContextOptions: NullableContextOptions.Enable));
        CSharpGeneratorDriver.Create(Generators.Value, parseOptions: parse)
            .RunGeneratorsAndUpdateCompilation(compilation, out var generated, out var generatorDiagnostics);
        using var image = new MemoryStream();
        var result = generated.Emit(image);
        var errors = generatorDiagnostics.Concat(result.Diagnostics).Where(d => d.Severity == DiagnosticSeverity.Error).ToList();
        if (!result.Success || errors.Count > 0)
        {
            throw new InvalidOperationException($"{name} does not compile as a program:\n" + string.Join('\n', errors.Select(e => e.ToString())));
        }

        return image.ToArray();
    }

    /// <summary>Compiles and runs <paramref name="code"/> in this process (its entry point, awaited), as the program it is.</summary>
    public static async Task RunAsync(string code, string name)
    {
        var assembly = Assembly.Load(Compile(code, name));
        var entry = assembly.EntryPoint ?? throw new InvalidOperationException($"{name} has no entry point.");
        var arguments = entry.GetParameters().Length == 0 ? null : new object[] { Array.Empty<string>() };
        var exitCode = await Task.Run(() => entry.Invoke(null, arguments));
        Assert.True(exitCode is null or 0, $"{name} returned {exitCode}.");
    }

    private static ISourceGenerator[] LoadJsonGenerator()
    {
        // <dotnet root>/shared/Microsoft.NETCore.App/<version>/ -> <dotnet root>/packs/Microsoft.NETCore.App.Ref/<version>/analyzers/dotnet/cs/
        var root = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
        var packs = new DirectoryInfo(Path.Combine(root, "packs", "Microsoft.NETCore.App.Ref"));
        var generator = packs.Exists
            ? packs.GetDirectories()
                .Where(d => Version.TryParse(d.Name.Split('-')[0], out var v) && v.Major == Environment.Version.Major)
                .OrderByDescending(d => Version.Parse(d.Name.Split('-')[0]))
                .Select(d => Path.Combine(d.FullName, "analyzers", "dotnet", "cs", "System.Text.Json.SourceGeneration.dll"))
                .FirstOrDefault(File.Exists)
            : null;
        if (generator == null)
        {
            throw new FileNotFoundException($"System.Text.Json's source generator was not found under {packs.FullName} (the .NET SDK's reference pack for .NET {Environment.Version.Major}).");
        }

        return [.. Assembly.LoadFrom(generator).GetTypes()
            .Where(t => !t.IsAbstract && typeof(IIncrementalGenerator).IsAssignableFrom(t) && t.GetCustomAttribute<GeneratorAttribute>() != null)
            .Select(t => ((IIncrementalGenerator)Activator.CreateInstance(t)!).AsSourceGenerator())];
    }
}
