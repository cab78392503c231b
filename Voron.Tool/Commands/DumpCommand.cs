using System.CommandLine;
using System.Text.Json;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron dump &lt;store&gt; [--tree T] [--prefix P] [--limit N] [--json]</c>: the keys and
/// values of one tree in key order (<see cref="DumpFormat"/> says how bytes are shown), or with no
/// <c>--tree</c> the store's trees and their entry counts. A tree that does not exist is a usage
/// error that lists the trees there are.
/// </summary>
internal static class DumpCommand
{
    public static Command Create(ToolConsole console)
    {
        var store = InspectOutput.StoreArgument();
        var tree = new Option<string?>("--tree", "-t") { Description = "the tree to dump (without it: list the trees)", HelpName = "NAME" };
        var prefix = new Option<string?>("--prefix", "-p") { Description = "only keys starting with this text (or 0x and hex bytes)", HelpName = "PREFIX" };
        var limit = new Option<long?>("--limit", "-n") { Description = "at most this many entries", HelpName = "N" };
        var json = InspectOutput.JsonOption("print JSON instead of lines");
        var command = new Command("dump", "print a tree's keys and values in key order (text, or 0x-hex for bytes that are not text); without --tree, list the trees")
        {
            store,
            tree,
            prefix,
            limit,
            json,
        };
        command.SetAction((result, cancellationToken) => Task.FromResult(Run(console, result.GetValue(store)!, result.GetValue(tree), result.GetValue(prefix),
            result.GetValue(limit), result.GetValue(json), cancellationToken)));
        return command;
    }

    private static int Run(ToolConsole console, string path, string? treeName, string? prefixText, long? limit, bool json, CancellationToken cancellationToken)
    {
        if (limit is < 0)
        {
            throw new ToolException(ExitCodes.Usage, $"--limit {limit} is negative: give 0 or more entries.");
        }

        var prefix = prefixText is null ? null : DumpFormat.ParsePrefix(prefixText);
        using var environment = StoreAccess.OpenEnvironment(path);
        using var read = environment.BeginRead();
        var names = read.GetTreeNames().Order(StringComparer.Ordinal).ToList();
        if (treeName is null)
        {
            ListTrees(console, read, names, json);
            return ExitCodes.Ok;
        }

        var tree = read.OpenTree(treeName) ?? throw new ToolException(ExitCodes.Usage,
            $"No tree '{treeName}' in the store. Its trees are: {(names.Count == 0 ? "(none)" : string.Join(", ", names))}.");
        var iterator = tree.Iterate();
        var found = prefix is null ? iterator.SeekFirst() : iterator.SeekPrefix(prefix);
        var max = limit ?? long.MaxValue;
        if (json)
        {
            InspectOutput.Json(console.Out, writer =>
            {
                writer.WriteStartObject();
                writer.WriteString("tree", treeName);
                writer.WriteStartArray("entries");
                for (long n = 0; found && n < max && (prefix is null || iterator.Key.StartsWith(prefix)); n++, found = iterator.MoveNext())
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    writer.WriteStartObject();
                    writer.WriteString("key", DumpFormat.Show(iterator.Key));
                    writer.WriteString("value", DumpFormat.Show(iterator.Value));
                    writer.WriteEndObject();
                }

                writer.WriteEndArray();
                writer.WriteEndObject();
            });
            return ExitCodes.Ok;
        }

        for (long n = 0; found && n < max && (prefix is null || iterator.Key.StartsWith(prefix)); n++, found = iterator.MoveNext())
        {
            cancellationToken.ThrowIfCancellationRequested();
            console.Out.Write(DumpFormat.Show(iterator.Key));
            console.Out.Write('\t');
            console.Out.WriteLine(DumpFormat.Show(iterator.Value));
        }

        return ExitCodes.Ok;
    }

    private static void ListTrees(ToolConsole console, ReadTransaction read, List<string> names, bool json)
    {
        var counts = names.Select(name => (Name: name, Entries: read.OpenTree(name)?.Count ?? 0)).ToList();
        if (json)
        {
            InspectOutput.Json(console.Out, writer =>
            {
                writer.WriteStartObject();
                InspectOutput.ObjectArray(writer, "trees", counts, tree =>
                {
                    writer.WriteString("name", tree.Name);
                    writer.WriteNumber("entries", tree.Entries);
                });
                writer.WriteEndObject();
            });
            return;
        }

        var table = InspectOutput.Table("Tree", "Entries");
        foreach (var (name, entries) in counts)
        {
            InspectOutput.Row(table, name, InspectOutput.Count(entries));
        }

        InspectOutput.Tables(console).Write(table);
    }
}
