using System.Buffers.Binary;
using System.Numerics;

namespace Voron.Tool.Tests;

/// <summary>
/// Plants damage in a closed store's files, as Voron.Tests' BitFlipTests and JournalDamageTests
/// do in memory, but on disk where the tool reads: flipped bits, a patched header, truncated and
/// deleted files.
/// </summary>
internal static class DamageStores
{
    /// <summary>Copies every file of <paramref name="source"/> (journal included) into <paramref name="destination"/>; the lock file is left out.</summary>
    public static void Copy(string source, string destination)
    {
        foreach (var file in Directory.EnumerateFiles(source, "*", SearchOption.AllDirectories))
        {
            var relative = Path.GetRelativePath(source, file);
            if (relative == "voron.lock")
            {
                continue;
            }

            var target = Path.Combine(destination, relative);
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }
    }

    /// <summary>Flips the bits of <paramref name="mask"/> in the byte at <paramref name="offset"/> of <paramref name="path"/>.</summary>
    public static void Flip(string path, long offset, byte mask = 0x10)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
        file.Position = offset;
        var value = file.ReadByte();
        Assert.True(value >= 0, $"offset {offset} is past the end of {path}");
        file.Position = offset;
        file.WriteByte((byte)(value ^ mask));
    }

    /// <summary>Zeroes <paramref name="length"/> bytes of <paramref name="path"/> from <paramref name="offset"/>.</summary>
    public static void Zero(string path, long offset, int length)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
        file.Position = offset;
        file.Write(new byte[length]);
    }

    /// <summary>Cuts <paramref name="path"/> to <paramref name="length"/> bytes.</summary>
    public static void Truncate(string path, long length)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
        file.SetLength(length);
    }

    /// <summary>Every offset where <paramref name="pattern"/> occurs in <paramref name="path"/>.</summary>
    public static List<long> Find(string path, ReadOnlySpan<byte> pattern)
    {
        var bytes = File.ReadAllBytes(path).AsSpan();
        var found = new List<long>();
        for (var at = 0; ;)
        {
            var next = bytes[at..].IndexOf(pattern);
            if (next < 0)
            {
                return found;
            }

            found.Add(at + next);
            at += next + 1;
        }
    }

    /// <summary>The pages of <paramref name="path"/> up to the last one holding a non-zero byte.</summary>
    public static int WrittenPages(string path)
    {
        var bytes = File.ReadAllBytes(path);
        var used = bytes.AsSpan().LastIndexOfAnyExcept((byte)0) + 1;
        return (used + PageSize - 1) / PageSize;
    }

    public const int PageSize = 8192;

    // The header file's layout (Voron.Core/Header/HeaderFile.cs, FORMAT block): a version field at
    // 8 and a CRC32C of all 512 bytes, with its own 4 bytes at 112 read as zero.
    private const int HeaderSize = 512;
    private const int VersionOffset = 8;
    private const int ChecksumOffset = 112;

    /// <summary>
    /// Writes <paramref name="version"/> into both header copies and seals each with a checksum
    /// that matches, as a newer Voron writing a newer format would.
    /// </summary>
    public static void PatchFormatVersion(string directory, int version)
    {
        foreach (var name in new[] { "headers.one", "headers.two" })
        {
            var path = Path.Combine(directory, name);
            if (!File.Exists(path))
            {
                continue;
            }

            var bytes = File.ReadAllBytes(path);
            Assert.Equal(BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(ChecksumOffset)), HeaderChecksum(bytes)); // the layout is still the one above
            BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(VersionOffset), version);
            BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(ChecksumOffset), HeaderChecksum(bytes));
            File.WriteAllBytes(path, bytes);
        }
    }

    private static uint HeaderChecksum(byte[] header)
    {
        var crc = 0xFFFFFFFFu;
        for (var i = 0; i < HeaderSize; i++)
        {
            crc = BitOperations.Crc32C(crc, i is >= ChecksumOffset and < ChecksumOffset + 4 ? (byte)0 : header[i]);
        }

        return ~crc;
    }
}
