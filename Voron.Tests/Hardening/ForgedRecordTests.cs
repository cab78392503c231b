using System.Buffers.Binary;
using System.Text;
using Voron.Journal;
using Voron.Platform;
using Voron.Tests.Engine;

namespace Voron.Tests.Hardening;

/// <summary>
/// Issue 17, defect 3: a stored value must never be able to pass as a journal record.
/// </summary>
public sealed class ForgedRecordTests
{
    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    /// <summary>
    /// What broke: spare journal files were reused without being cleared, and recovery scans the
    /// rest of the last journal file for intact record headers (rule D4). A ~2 MiB value holding
    /// forged record headers at a stride of 4096 + 8 bytes leaves one of them at a 4096-aligned
    /// offset of a journal file; once that file was recycled, every open threw
    /// CorruptionException ("acknowledged transactions would be lost") — a denial of service by
    /// any client allowed to store a value. Fixed by binding every record to its store and file
    /// (a random store id in the header file and the journal file number are inside the header
    /// checksum, so bytes that do not know the id cannot pass as a header), and by zero-filling a
    /// spare ahead of the records written into it.
    /// </summary>
    [Fact]
    public void Open_succeeds_after_a_value_of_forged_record_headers_sat_in_a_recycled_journal_file()
    {
        var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs, journalFileSize: 4 << 20);
        var forged = ForgedValue(seed: 17, copies: 512);
        using (var env = StorageEnvironment.Open(options))
        {
            Put(env, "small-0", new byte[10]);
            Put(env, "forged", forged);
            var file = env.Journal.Position.FileNumber;
            var i = 0;
            while (env.Journal.Position.FileNumber == file)
            {
                Put(env, $"filler-{i++}", Noise(i, 100_000));
            }

            // The journal file holding the forged value is released to a spare ...
            env.FlushToDataFile();
            file = env.Journal.Position.FileNumber;
            while (env.Journal.Position.FileNumber == file)
            {
                Put(env, $"filler-{i++}", Noise(i, 100_000));
            }

            // ... which the writer reuses: the log now ends early in the recycled file.
            Put(env, "last", B("value"));
        }

        for (var attempt = 0; attempt < 2; attempt++)
        {
            using var env = StorageEnvironment.Open(StoreFactory.Options(fs, journalFileSize: 4 << 20));
            using var read = env.BeginRead();
            var tree = read.OpenTree("t")!;
            Assert.Equal(forged, tree.Get(B("forged")));
            Assert.Equal(B("value"), tree.Get(B("last")));
        }
    }

    private static void Put(StorageEnvironment env, string key, byte[] value)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(B(key), value);
        tx.Commit();
    }

    private static byte[] Noise(int seed, int length)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    /// <summary>
    /// Incompressible bytes holding forged record headers: units of 4096 + 8 bytes, each with 8
    /// headers 129 bytes apart (so their offsets cover every residue modulo 8), so whatever offset
    /// the value starts at in a record, one header sits at a 4096-aligned file offset. Each header
    /// is what an attacker can build from the published format alone: the version-1 layout with a
    /// plain CRC32C header checksum, or the version-2 layout with the checksum seeded by a guessed
    /// store id. The transaction id is huge, so it is "ahead" of any recovery.
    /// </summary>
    internal static byte[] ForgedValue(int seed, int copies)
    {
        const int stride = 4096 + 8;
        var random = new Random(seed);
        var value = new byte[copies * stride];
        random.NextBytes(value);
        var seeded = new byte[16 + 128];
        for (var i = 0; i < copies; i++)
        {
            for (var j = 0; j < 8; j++)
            {
                Forge(value.AsSpan((i * stride) + (j * 129), 128), version: (ushort)(1 + ((i + j) % 2)), random, seeded);
            }
        }

        return value;
    }

    private static void Forge(Span<byte> header, ushort version, Random random, byte[] seeded)
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
        BinaryPrimitives.WriteInt64LittleEndian(header[112..], (1L << 40) - 1); // "durable through": everything
        BinaryPrimitives.WriteUInt64LittleEndian(seeded, (ulong)random.NextInt64());
        BinaryPrimitives.WriteInt64LittleEndian(seeded.AsSpan(8), 3);
        header.CopyTo(seeded.AsSpan(16));
        BinaryPrimitives.WriteUInt32LittleEndian(header[44..], Crc32C.Compute(seeded));
    }
}
