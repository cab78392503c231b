using System.Buffers.Binary;

namespace Voron.Testing.Crash;

/// <summary>Values crafted to pass for journal records (a stored value must never pass for one): ForgedRecordTests and the "forged values" crash scenario store them.</summary>
internal static class ForgedRecords
{
    /// <summary>
    /// Incompressible bytes holding forged record headers: units of 4096 + 8 bytes, each with 8
    /// headers 129 bytes apart (so their offsets cover every residue modulo 8); with 512 units,
    /// whatever offset the value starts at in a record, one header sits at a 4096-aligned file
    /// offset. Each header is what an attacker can build from the published format alone: the
    /// version-1 layout with a plain CRC32C header checksum, or the version-2 layout with its
    /// checksum bound to a guessed store id and file number. The transaction id is huge and the
    /// version-2 DurableThrough claims everything, so a header taken for a record would end any
    /// recovery in a CorruptionException.
    /// </summary>
    public static byte[] Value(int seed, int units)
    {
        const int stride = 4096 + 8;
        var random = new Random(seed);
        var value = new byte[units * stride];
        random.NextBytes(value);
        for (var i = 0; i < units; i++)
        {
            for (var j = 0; j < 8; j++)
            {
                Forge(value.AsSpan((i * stride) + (j * 129), 128), version: (ushort)(1 + ((i + j) % 2)), random);
            }
        }

        return value;
    }

    private static void Forge(Span<byte> header, ushort version, Random random)
    {
        BinaryPrimitives.WriteUInt64LittleEndian(header, 0x4C4E4A4E4F524F56); // "VORONJNL"
        BinaryPrimitives.WriteUInt16LittleEndian(header[8..], version);
        BinaryPrimitives.WriteUInt16LittleEndian(header[10..], 1); // LZ4 bit only: not Lazy
        BinaryPrimitives.WriteInt64LittleEndian(header[16..], 1L << 40);
        BinaryPrimitives.WriteUInt32LittleEndian(header[44..], 0);
        if (version == 1)
        {
            BinaryPrimitives.WriteUInt32LittleEndian(header[44..], Crc32C.Compute(header));
            return;
        }

        // Version 2 binds the header to a store id the attacker does not know: guess one.
        BinaryPrimitives.WriteInt64LittleEndian(header[112..], (1L << 40) - 1); // DurableThrough: everything
        BinaryPrimitives.WriteUInt32LittleEndian(header[44..],
            Voron.Journal.JournalRecord.ComputeHeaderChecksum(header, (ulong)random.NextInt64(), random.Next(1, 9)));
    }
}
