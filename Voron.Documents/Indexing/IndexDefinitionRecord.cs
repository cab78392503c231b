using System.Buffers.Binary;
using System.Text;

namespace Voron.Documents.Indexing;

// FORMAT: index definition record, version 1 — the value of key "idx/<collection>/<index>" in
// the "@docs.meta" tree (Storage/DocumentTrees.cs): what an index indexes, and how far its build
// has come.
//
//   OFFSET  SIZE  NAME        MEANING
//   0       1     format      DefinitionFormat (1)
//   1       1     flags       bit 0: unique; the other bits 0
//   2       1     state       0 = building (maintained by every write, not yet queryable), 1 = ready
//   3       1     N           number of paths, 1..DocumentLimits.MaxIndexPaths
//   4       8     processed   int64 LE: documents the build has indexed (progress; 0 when ready)
//   12      ...   paths       N times: uint16 LE length L (1..256), then L bytes of the path's UTF-8 text
//   ...     2     R           uint16 LE: length of the resume id (0: the build has not started)
//   ...     R     resume      the last document id the build indexed; it goes on after it
//
// A record is valid iff
//   IX1. format is DefinitionFormat;
//   IX2. flags and state are as above;
//   IX3. N and every L are in range and the lengths add up to the record's length exactly;
//   IX4. every path parses (Indexing/JsonPath.cs) and at most one is multikey;
//   IX5. R <= 512.
// A record breaking a rule raises CorruptionException, except a format above DefinitionFormat:
// FormatVersionException (a newer build defined the index). The build protocol: Indexing/IndexBuilder.cs.

/// <summary>An index definition as stored, with its build state; see the FORMAT block above.</summary>
internal sealed record IndexDefinitionRecord(IndexDefinition Definition, bool Ready, long Processed, byte[]? ResumeAfter)
{
    public const byte DefinitionFormat = 1;
    private const byte UniqueFlag = 1;

    public byte[] Encode()
    {
        var paths = Definition.Paths.Select(Encoding.UTF8.GetBytes).ToArray();
        var resume = ResumeAfter ?? [];
        var record = new byte[12 + paths.Sum(p => 2 + p.Length) + 2 + resume.Length];
        record[0] = DefinitionFormat;
        record[1] = Definition.IsUnique ? UniqueFlag : (byte)0;
        record[2] = Ready ? (byte)1 : (byte)0;
        record[3] = (byte)paths.Length;
        BinaryPrimitives.WriteInt64LittleEndian(record.AsSpan(4), Processed);
        var offset = 12;
        foreach (var path in paths)
        {
            BinaryPrimitives.WriteUInt16LittleEndian(record.AsSpan(offset), (ushort)path.Length);
            path.CopyTo(record, offset + 2);
            offset += 2 + path.Length;
        }

        BinaryPrimitives.WriteUInt16LittleEndian(record.AsSpan(offset), (ushort)resume.Length);
        resume.CopyTo(record, offset + 2);
        return record;
    }

    public static IndexDefinitionRecord Decode(string collection, string name, ReadOnlySpan<byte> record, string storePath)
    {
        CorruptionException Corrupt(int offset, string rule) =>
            new(storePath, offset, $"index definition record of '{collection}/{name}' in tree '{Storage.DocumentTrees.Meta}' breaks {rule} (the offset is within the record).");

        if (record.Length < 14)
        {
            throw Corrupt(0, $"IX3: {record.Length} bytes is too short");
        }

        if (record[0] > DefinitionFormat)
        {
            throw new FormatVersionException(storePath, record[0], DefinitionFormat,
                $"Index '{collection}/{name}' was defined by a newer Voron build; open the store with that build.");
        }

        if (record[0] != DefinitionFormat)
        {
            throw Corrupt(0, $"IX1: format {record[0]}");
        }

        if ((record[1] & ~UniqueFlag) != 0 || record[2] > 1)
        {
            throw Corrupt(1, $"IX2: flags 0x{record[1]:X2}, state {record[2]}");
        }

        int count = record[3];
        if (count is < 1 or > DocumentLimits.MaxIndexPaths)
        {
            throw Corrupt(3, $"IX3: {count} paths");
        }

        var processed = BinaryPrimitives.ReadInt64LittleEndian(record[4..]);
        var paths = new string[count];
        var offset = 12;
        for (var i = 0; i < count; i++)
        {
            if (offset + 2 > record.Length)
            {
                throw Corrupt(offset, "IX3: the paths run past the record");
            }

            int length = BinaryPrimitives.ReadUInt16LittleEndian(record[offset..]);
            if (length is < 1 or > JsonPath.MaxLength || offset + 2 + length > record.Length)
            {
                throw Corrupt(offset, $"IX3: path length {length}");
            }

            paths[i] = Encoding.UTF8.GetString(record.Slice(offset + 2, length));
            offset += 2 + length;
        }

        if (offset + 2 > record.Length)
        {
            throw Corrupt(offset, "IX3: no resume length");
        }

        int resumeLength = BinaryPrimitives.ReadUInt16LittleEndian(record[offset..]);
        if (resumeLength > DocumentLimits.MaxIdBytes || offset + 2 + resumeLength != record.Length)
        {
            throw Corrupt(offset, $"IX3/IX5: resume id length {resumeLength} in a record of {record.Length} bytes");
        }

        IndexDefinition definition;
        try
        {
            definition = new IndexDefinition(collection, name, paths);
        }
        catch (ArgumentException e)
        {
            throw Corrupt(12, $"IX4: {e.Message}");
        }

        if ((record[1] & UniqueFlag) != 0)
        {
            definition = definition.AsUnique();
        }

        return new IndexDefinitionRecord(definition, record[2] == 1, processed, resumeLength == 0 ? null : record.Slice(offset + 2, resumeLength).ToArray());
    }
}
