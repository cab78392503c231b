using System.Buffers.Binary;

namespace Voron.Tool;

/// <summary>
/// The page files of a store as SQLite databases: which ones start with SQLite's header, and their
/// page size and page count read from it (bytes 16–17 of the file, big-endian, 1 meaning 65,536;
/// sqlite.org/fileformat.html). Everything read is checked: a file that does not carry the header
/// or names an impossible page size is reported as a plain page file.
/// </summary>
internal static class InspectSqlite
{
    private static ReadOnlySpan<byte> HeaderString => "SQLite format 3\0"u8;

    /// <summary>One page file: its name, length, and SQLite page size when it is a database (0 otherwise); <paramref name="Damage"/> when its first block cannot be read.</summary>
    internal sealed record PageFileInfo(string Name, long Bytes, int SqlitePageSize, CorruptionException? Damage = null)
    {
        /// <summary>True when the file starts with SQLite's database header.</summary>
        public bool IsDatabase => SqlitePageSize > 0;

        /// <summary>Pages of <see cref="SqlitePageSize"/> for a database, blocks of <see cref="PageFile.BlockSize"/> otherwise.</summary>
        public long Pages => IsDatabase ? Bytes / SqlitePageSize : (Bytes + PageFile.BlockSize - 1) / PageFile.BlockSize;
    }

    /// <summary>Every page file of the store, in name order.</summary>
    public static IReadOnlyList<PageFileInfo> List(StorageEnvironment environment)
    {
        using var read = environment.BeginRead();
        var files = new List<PageFileInfo>();
        Span<byte> header = stackalloc byte[100];
        foreach (var name in read.GetPageFileNames().Order(StringComparer.Ordinal))
        {
            var file = read.OpenPageFile(name);
            if (file is null)
            {
                continue;
            }

            var length = file.Length;
            try
            {
                var got = length >= header.Length ? file.Read(0, header) : 0;
                files.Add(new PageFileInfo(name, length, got == header.Length ? PageSizeOf(header) : 0));
            }
            catch (CorruptionException e)
            {
                files.Add(new PageFileInfo(name, length, 0, e)); // reported by check (and stat) as damage to this file
            }
        }

        return files;
    }

    /// <summary>The page size a database header names, or 0 when <paramref name="header"/> is not one.</summary>
    internal static int PageSizeOf(ReadOnlySpan<byte> header)
    {
        if (header.Length < 18 || !header.StartsWith(HeaderString))
        {
            return 0;
        }

        var raw = BinaryPrimitives.ReadUInt16BigEndian(header[16..]);
        var size = raw == 1 ? 65536 : raw;
        return size >= 512 && (size & (size - 1)) == 0 ? size : 0; // a power of two in [512, 65536]
    }
}
