using System.Text;

namespace Voron.Testing.Crash;

/// <summary>The expected contents of a store: trees by name, keys (UTF-8, compared ordinally as the store does) to values.</summary>
internal sealed class ModelState
{
    public SortedDictionary<string, SortedDictionary<string, byte[]>> Trees { get; } = new(StringComparer.Ordinal);

    public SortedDictionary<string, byte[]> TreeOrNew(string name)
    {
        if (!Trees.TryGetValue(name, out var tree))
        {
            tree = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
            Trees[name] = tree;
        }

        return tree;
    }

    public ModelState Clone()
    {
        var copy = new ModelState();
        foreach (var (name, tree) in Trees)
        {
            copy.Trees[name] = new SortedDictionary<string, byte[]>(tree, StringComparer.Ordinal);
        }

        return copy;
    }

    /// <summary>The first difference between the store as <paramref name="read"/> sees it and this state, or null when they are equal.</summary>
    public string? FindDifference(ReadTransaction read)
    {
        var names = read.GetTreeNames().Where(n => !n.StartsWith("__", StringComparison.Ordinal)).ToList();
        var expectedNames = Trees.Keys.ToList();
        if (!names.SequenceEqual(expectedNames, StringComparer.Ordinal))
        {
            return $"trees [{string.Join(", ", names)}], expected [{string.Join(", ", expectedNames)}]";
        }

        foreach (var (name, expected) in Trees)
        {
            var tree = read.OpenTree(name)!;
            if (tree.Count != expected.Count)
            {
                return $"tree '{name}' has {tree.Count} keys, expected {expected.Count}";
            }

            var iterator = tree.Iterate();
            var more = iterator.SeekFirst();
            foreach (var (key, value) in expected)
            {
                if (!more)
                {
                    return $"tree '{name}' ends before key '{key}'";
                }

                var actualKey = Encoding.UTF8.GetString(iterator.Key);
                if (actualKey != key)
                {
                    return $"tree '{name}' holds key '{actualKey}' where '{key}' was expected";
                }

                if (!iterator.Value.SequenceEqual(value))
                {
                    return $"tree '{name}' key '{key}' has a {iterator.Value.Length}-byte value that differs from the expected {value.Length} bytes";
                }

                more = iterator.MoveNext();
            }

            if (more)
            {
                return $"tree '{name}' has a key past the expected last ('{Encoding.UTF8.GetString(iterator.Key)}')";
            }
        }

        return null;
    }
}
