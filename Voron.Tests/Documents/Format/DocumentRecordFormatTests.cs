using Voron.Documents.Storage;

namespace Voron.Tests.Documents.Format;

/// <summary>The document record's layout and validity rules (FORMAT block in Storage/DocumentRecord.cs).</summary>
public sealed class DocumentRecordFormatTests
{
    private static readonly byte[] Collection = "User"u8.ToArray();

    [Fact]
    public void Layout_has_the_documented_offsets()
    {
        Assert.Equal(0, DocumentRecord.FormatOffset);
        Assert.Equal(1, DocumentRecord.FlagsOffset);
        Assert.Equal(2, DocumentRecord.CollectionLengthOffset);
        Assert.Equal(3, DocumentRecord.ReservedOffset);
        Assert.Equal(4, DocumentRecord.VersionOffset);
        Assert.Equal(12, DocumentRecord.LastModifiedOffset);
        Assert.Equal(20, DocumentRecord.JsonLengthOffset);
        Assert.Equal(24, DocumentRecord.HeaderSize);

        var json = "{\"a\":1}"u8.ToArray();
        var record = DocumentRecord.Build(Collection, json, compressionThreshold: 2048);
        DocumentRecord.Stamp(record, 42, 638_000_000_000_000_000);
        Assert.Equal(24 + Collection.Length + json.Length, record.Length);
        Assert.Equal(1, record[0]);
        Assert.Equal(0, record[1]);
        Assert.Equal(Collection.Length, record[2]);
        Assert.Equal(42, BinaryPrimitives.ReadInt64LittleEndian(record.AsSpan(4)));
        Assert.Equal(638_000_000_000_000_000, BinaryPrimitives.ReadInt64LittleEndian(record.AsSpan(12)));
        Assert.Equal(json.Length, BinaryPrimitives.ReadInt32LittleEndian(record.AsSpan(20)));
        Assert.Equal(Collection, record.AsSpan(24, Collection.Length).ToArray());
        Assert.Equal(json, record.AsSpan(24 + Collection.Length).ToArray());
    }

    [Fact]
    public void Large_compressible_documents_are_stored_LZ4_compressed_and_read_back_exactly()
    {
        var json = Encoding.UTF8.GetBytes("{\"items\":[" + string.Join(",", Enumerable.Range(0, 500).Select(i => $"{{\"n\":{i},\"name\":\"item\"}}")) + "]}");
        var record = DocumentRecord.Build(Collection, json, compressionThreshold: 2048);
        DocumentRecord.Stamp(record, 1, 0);
        Assert.Equal(DocumentRecord.Compressed, record[1]);
        Assert.True(record.Length < json.Length / 2);
        var header = DocumentRecord.ReadHeader(record, "x", "/store");
        byte[]? rented = null;
        Assert.Equal(json, DocumentRecord.Json(record, header, ref rented, "x", "/store").ToArray());
    }

    [Fact]
    public void Small_or_incompressible_documents_are_stored_plain()
    {
        var small = Encoding.UTF8.GetBytes("{\"t\":\"" + new string('a', 1000) + "\"}");
        Assert.Equal(0, DocumentRecord.Build(Collection, small, compressionThreshold: 2048)[1]);
        var random = new byte[4000];
        new Random(1).NextBytes(random);
        var incompressible = Encoding.UTF8.GetBytes("{\"t\":\"" + Convert.ToBase64String(random) + "\"}");
        Assert.Equal(0, DocumentRecord.Build(Collection, incompressible, compressionThreshold: 2048)[1]);
        var compressibleButOff = Encoding.UTF8.GetBytes("{\"t\":\"" + new string('a', 5000) + "\"}");
        Assert.Equal(0, DocumentRecord.Build(Collection, compressibleButOff, compressionThreshold: 0)[1]);
    }

    public static TheoryData<string, int, byte> Damage => new()
    {
        { "DR2", 0, 0 },
        { "DR3", 1, 0x80 },
        { "DR3", 3, 1 },
        { "DR4", 2, 0 },
        { "DR5", 4, 0 },
        { "DR6", 19, 0xFF },
        { "DR7", 23, 0x7F },
    };

    [Theory]
    [MemberData(nameof(Damage))]
    public void A_record_breaking_a_rule_raises_CorruptionException_naming_it(string rule, int offset, byte value)
    {
        var record = DocumentRecord.Build(Collection, "{\"a\":1}"u8, 2048);
        DocumentRecord.Stamp(record, 5, 100);
        if (rule == "DR5")
        {
            BinaryPrimitives.WriteInt64LittleEndian(record.AsSpan(4), 0);
        }
        else
        {
            record[offset] = value;
        }

        var error = Assert.Throws<CorruptionException>(() => DocumentRecord.ReadHeader(record, "doc/1", "/store"));
        Assert.Contains(rule, error.Message, StringComparison.Ordinal);
        Assert.Contains("doc/1", error.Message, StringComparison.Ordinal);
        Assert.Equal("/store", error.File);
    }

    [Fact]
    public void A_truncated_record_or_a_bad_lz4_body_raises_CorruptionException()
    {
        var record = DocumentRecord.Build(Collection, "{\"a\":1}"u8, 2048);
        DocumentRecord.Stamp(record, 5, 100);
        Assert.Throws<CorruptionException>(() => DocumentRecord.ReadHeader(record.AsSpan(0, 10), "d", "/s"));
        Assert.Throws<CorruptionException>(() => DocumentRecord.ReadHeader(record.AsSpan(0, record.Length - 1), "d", "/s"));

        var json = Encoding.UTF8.GetBytes("{\"t\":\"" + new string('a', 5000) + "\"}");
        var compressed = DocumentRecord.Build(Collection, json, 2048);
        DocumentRecord.Stamp(compressed, 1, 0);
        var cut = compressed.AsSpan(0, compressed.Length - 5).ToArray(); // an LZ4 block missing its end
        var header = DocumentRecord.ReadHeader(cut, "d", "/s");
        var target = new byte[json.Length];
        Assert.Throws<CorruptionException>(() => DocumentRecord.CopyJson(cut, header, target, "d", "/s"));
    }
}
