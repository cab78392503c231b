using System.Text.RegularExpressions;
using System.Xml.Linq;

namespace Voron.Tests.Codebase;

/// <summary>The product projects (Voron.slnx's <c>/products/</c> folder) and their C# sources, for the tests that hold the code to a rule.</summary>
internal static partial class ProductSources
{
    /// <summary>The folders of the projects in Voron.slnx's <c>/products/</c> folder.</summary>
    public static List<string> Projects(string root) =>
        [.. XDocument.Load(Path.Combine(root, "Voron.slnx")).Root!
            .Elements("Folder").Where(f => (string?)f.Attribute("Name") == "/products/")
            .Elements("Project").Select(p => Path.GetDirectoryName((string)p.Attribute("Path")!)!.Replace('\\', '/'))];

    /// <summary>The .cs files of <paramref name="projects"/> (build output left out), in ordinal order: each one's path from <paramref name="root"/> with '/' separators, and its full path.</summary>
    public static IEnumerable<(string Relative, string Path)> Files(string root, IEnumerable<string> projects)
    {
        foreach (var project in projects)
        {
            foreach (var path in Directory.EnumerateFiles(System.IO.Path.Combine(root, project), "*.cs", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
            {
                var relative = System.IO.Path.GetRelativePath(root, path).Replace('\\', '/');
                if (!relative.Split('/').Any(part => part is "obj" or "bin"))
                {
                    yield return (relative, path);
                }
            }
        }
    }

    /// <summary>Each line of <paramref name="sources"/> where <paramref name="name"/> matches outside comments and string literals, as "file:line".</summary>
    public static List<string> UsesInCode(IEnumerable<SourceText> sources, Regex name)
    {
        var found = new List<string>();
        foreach (var source in sources)
        {
            var lines = source.Text.Split('\n');
            for (var i = 0; i < lines.Length; i++)
            {
                var code = StringLiteral().Replace(lines[i], "\"\"");
                var comment = code.IndexOf("//", StringComparison.Ordinal);
                if (comment >= 0)
                {
                    code = code[..comment];
                }

                if (name.IsMatch(code))
                {
                    found.Add($"{source.Path}:{i + 1}");
                }
            }
        }

        return found;
    }

    [GeneratedRegex(@"""(?:[^""\\]|\\.)*""")]
    private static partial Regex StringLiteral();
}
