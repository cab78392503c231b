using System.Buffers.Binary;
using System.Text;

namespace Voron.LoadTests.Stores.Lmdb;

/// <summary>
/// Rewrites, in memory, a 64-bit little-endian ELF shared library whose only use of glibc 2.38 is
/// the C23 variants of the string-to-number functions (<c>__isoc23_strtol</c> and kin, which a
/// compiler emits for <c>strtol</c> under glibc 2.38's headers), so that it loads with an older
/// glibc: each such undefined symbol is renamed to the classic function (its name is the suffix of
/// the C23 one in the string table, so only the symbol's name offset changes), and the library's
/// requirement of version GLIBC_2.38 is renamed to GLIBC_2.2.5, the version of the classic
/// functions. The C23 variants differ only in also reading a "0b" prefix. Nothing else is changed;
/// a library that needs anything else from glibc 2.38 is left alone.
/// </summary>
/// <remarks>
/// ELF structures used (System V gABI, 64-bit): the section headers (e_shoff at 0x28, e_shentsize
/// at 0x3A, e_shnum at 0x3C; sh_type at +4, sh_offset at +24, sh_size at +32, sh_link at +40), the
/// dynamic symbol table (24-byte entries, st_name at +0, st_shndx at +6), its version table (one
/// 16-bit version index per symbol) and the version-needed table (Elf64_Verneed: vn_cnt at +2,
/// vn_aux at +8, vn_next at +12; Elf64_Vernaux: vna_hash at +0, vna_other at +6, vna_name at +8,
/// vna_next at +12).
/// </remarks>
internal static class Glibc238Shim
{
    private const uint SectionDynamicSymbols = 11;
    private const uint SectionVersionNeeded = 0x6ffffffe;
    private const uint SectionVersionSymbols = 0x6fffffff;
    private const string C23Prefix = "__isoc23_";
    private const string NewVersion = "GLIBC_2.38";
    private const string OldVersion = "GLIBC_2.2.5";
    private static readonly byte[] ElfMagic = [0x7F, (byte)'E', (byte)'L', (byte)'F'];

    /// <summary>Patches <paramref name="image"/> in place; false (and untouched) when it is not such a library.</summary>
    public static bool TryPatch(byte[] image)
    {
        if (image.Length < 64 || !image.AsSpan(0, 4).SequenceEqual(ElfMagic) || image[4] != 2 || image[5] != 1)
        {
            return false; // not ELF, or not 64-bit little-endian
        }

        var sections = Sections(image);
        var symbols = sections.FirstOrDefault(s => s.Type == SectionDynamicSymbols);
        var versions = sections.FirstOrDefault(s => s.Type == SectionVersionSymbols);
        var needed = sections.FirstOrDefault(s => s.Type == SectionVersionNeeded);
        if (symbols.Size == 0 || versions.Size == 0 || needed.Size == 0)
        {
            return false;
        }

        var strings = sections[symbols.Link].Offset;
        var (newAux, oldName) = FindVersions(image, needed.Offset, strings);
        if (newAux < 0 || oldName < 0)
        {
            return false;
        }

        var newIndex = BinaryPrimitives.ReadUInt16LittleEndian(image.AsSpan(newAux + 6));
        var renames = new List<int>();
        for (var i = 0; i < symbols.Size / 24; i++)
        {
            var entry = symbols.Offset + (i * 24);
            if ((BinaryPrimitives.ReadUInt16LittleEndian(image.AsSpan(versions.Offset + (i * 2))) & 0x7FFF) != newIndex)
            {
                continue;
            }

            var name = ReadString(image, strings + BinaryPrimitives.ReadInt32LittleEndian(image.AsSpan(entry)));
            if (!name.StartsWith(C23Prefix, StringComparison.Ordinal) || BinaryPrimitives.ReadUInt16LittleEndian(image.AsSpan(entry + 6)) != 0)
            {
                return false; // something else from glibc 2.38, or a definition rather than a reference
            }

            renames.Add(entry);
        }

        foreach (var entry in renames)
        {
            var nameOffset = BinaryPrimitives.ReadInt32LittleEndian(image.AsSpan(entry));
            BinaryPrimitives.WriteInt32LittleEndian(image.AsSpan(entry), nameOffset + C23Prefix.Length);
        }

        BinaryPrimitives.WriteUInt32LittleEndian(image.AsSpan(newAux), ElfHash(OldVersion));
        BinaryPrimitives.WriteInt32LittleEndian(image.AsSpan(newAux + 8), oldName);
        return true;
    }

    private static List<(uint Type, int Offset, int Size, int Link)> Sections(byte[] image)
    {
        var table = checked((int)BinaryPrimitives.ReadUInt64LittleEndian(image.AsSpan(0x28)));
        var entrySize = BinaryPrimitives.ReadUInt16LittleEndian(image.AsSpan(0x3A));
        var count = BinaryPrimitives.ReadUInt16LittleEndian(image.AsSpan(0x3C));
        var sections = new List<(uint, int, int, int)>();
        for (var i = 0; i < count; i++)
        {
            var header = image.AsSpan(table + (i * entrySize), 64);
            sections.Add((
                BinaryPrimitives.ReadUInt32LittleEndian(header[4..]),
                checked((int)BinaryPrimitives.ReadUInt64LittleEndian(header[24..])),
                checked((int)BinaryPrimitives.ReadUInt64LittleEndian(header[32..])),
                (int)BinaryPrimitives.ReadUInt32LittleEndian(header[40..])));
        }

        return sections;
    }

    /// <summary>The file offset of the Vernaux requiring GLIBC_2.38 and the string offset of the name GLIBC_2.2.5 (-1 when absent).</summary>
    private static (int NewAux, int OldName) FindVersions(byte[] image, int needed, int strings)
    {
        var (newAux, oldName) = (-1, -1);
        for (var at = needed; ;)
        {
            var auxCount = BinaryPrimitives.ReadUInt16LittleEndian(image.AsSpan(at + 2));
            var aux = at + BinaryPrimitives.ReadInt32LittleEndian(image.AsSpan(at + 8));
            for (var j = 0; j < auxCount; j++)
            {
                var nameOffset = BinaryPrimitives.ReadInt32LittleEndian(image.AsSpan(aux + 8));
                switch (ReadString(image, strings + nameOffset))
                {
                    case NewVersion:
                        newAux = aux;
                        break;
                    case OldVersion:
                        oldName = nameOffset;
                        break;
                }

                aux += BinaryPrimitives.ReadInt32LittleEndian(image.AsSpan(aux + 12));
            }

            var next = BinaryPrimitives.ReadInt32LittleEndian(image.AsSpan(at + 12));
            if (next == 0)
            {
                return (newAux, oldName);
            }

            at += next;
        }
    }

    private static string ReadString(byte[] image, int offset) =>
        Encoding.ASCII.GetString(image, offset, image.AsSpan(offset).IndexOf((byte)0));

    /// <summary>The System V ELF hash, which Vernaux entries carry for their version name.</summary>
    private static uint ElfHash(string name)
    {
        uint hash = 0;
        foreach (var c in name)
        {
            hash = (hash << 4) + c;
            var high = hash & 0xF0000000;
            if (high != 0)
            {
                hash ^= high >> 24;
            }

            hash &= ~high;
        }

        return hash;
    }
}
