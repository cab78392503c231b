namespace Voron.Tests.Core.Compaction;

/// <summary>
/// Everything a store holds, as text lines a test compares: every tree with every key and value
/// (page-file trees excepted), and every page file's length, sequence, present blocks and bytes.
/// Page-file maps hold raw page numbers, which a compacted copy changes: they are compared
/// through the page-file API instead.
/// </summary>
internal static class StoreContent
{
    public static List<string> Of(ReadTransaction read)
    {
        var lines = new List<string>();
        foreach (var name in read.GetTreeNames())
        {
            var tree = read.OpenTree(name)!;
            if (name.StartsWith(Voron.PageFiles.PageFileFormat.TreePrefix, StringComparison.Ordinal))
            {
                lines.Add($"map {name}: {tree.Count} entries");
                continue;
            }

            lines.Add($"tree {name}: {tree.Count} entries");
            var iterator = tree.Iterate();
            for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
            {
                lines.Add($"  {Convert.ToHexString(iterator.Key)} = {Convert.ToHexString(iterator.Value)}");
            }
        }

        foreach (var name in read.GetPageFileNames())
        {
            var file = read.OpenPageFile(name)!;
            var blocks = new StringBuilder();
            for (long block = 0; block * PageFile.BlockSize < file.Length; block++)
            {
                blocks.Append(file.TryGetBlock(block, out _) ? '#' : '.');
            }

            var bytes = new byte[file.Length];
            file.Read(0, bytes);
            lines.Add($"page file {name}: length {file.Length}, sequence {file.Sequence}, blocks {blocks}, sha {Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(bytes))}");
        }

        return lines;
    }

    public static List<string> Of(StorageEnvironment environment)
    {
        using var read = environment.BeginRead();
        return Of(read);
    }
}
