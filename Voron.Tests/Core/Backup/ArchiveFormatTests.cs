using Voron.Backup;

namespace Voron.Tests.Core.Backup;

/// <summary>The compaction note's layout and validity (AC1..AC4), and the manifest's snapshot commit time (BM4, BM5).</summary>
public sealed class ArchiveFormatTests
{
    private static readonly ArchivedCompaction Note = new(0x1111, 300, 5, 0x2222, 300, 6, 1_764_000_000_000);

    private static string PathOf(long number) => ArchivedCompaction.PathOf("/archive", number);

    [Fact]
    public void A_compaction_note_round_trips_with_its_fields_at_the_offsets_its_FORMAT_block_gives()
    {
        var bytes = Note.Encode();
        Assert.Equal(ArchivedCompaction.Size, bytes.Length);
        Assert.Equal(80, ArchivedCompaction.Size);
        Assert.Equal("VORONACN"u8.ToArray(), bytes[..8]);
        Assert.Equal(1, BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(8)));
        Assert.Equal(0x1111UL, BinaryPrimitives.ReadUInt64LittleEndian(bytes.AsSpan(16)));
        Assert.Equal(300, BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(24)));
        Assert.Equal(5, BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(32)));
        Assert.Equal(0x2222UL, BinaryPrimitives.ReadUInt64LittleEndian(bytes.AsSpan(40)));
        Assert.Equal(300, BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(48)));
        Assert.Equal(6, BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(56)));
        Assert.Equal(1_764_000_000_000, BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(64)));
        Assert.Equal(Voron.Crc32C.Compute(bytes.AsSpan(0, 76)), BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(76)));
        Assert.Equal(Note, ArchivedCompaction.Decode(bytes, PathOf(5)));
        Assert.EndsWith("0000000000000000005.compacted", PathOf(5), StringComparison.Ordinal);
    }

    [Fact]
    public void Every_flipped_bit_of_a_compaction_note_is_refused()
    {
        var bytes = Note.Encode();
        for (var bit = 0; bit < bytes.Length * 8; bit++)
        {
            var damaged = (byte[])bytes.Clone();
            damaged[bit / 8] ^= (byte)(1 << (bit % 8));
            var e = Assert.ThrowsAny<Exception>(() => ArchivedCompaction.Decode(damaged, PathOf(5)));
            Assert.True(e is CorruptionException, $"bit {bit}: {e}");
        }
    }

    [Theory]
    [InlineData("same ids")]
    [InlineData("copy before source")]
    [InlineData("copy's first file not past the last")]
    [InlineData("another name")]
    [InlineData("short")]
    public void A_compaction_note_with_a_valid_checksum_and_a_bad_field_is_refused(string what)
    {
        var note = what switch
        {
            "same ids" => Note with { CopyStoreId = Note.SourceStoreId },
            "copy before source" => Note with { CopyTransaction = Note.SourceTransaction - 1 },
            "copy's first file not past the last" => Note with { CopyFirstFile = Note.SourceLastFile },
            _ => Note,
        };
        var bytes = what == "short" ? note.Encode()[..79] : note.Encode();
        var e = Assert.Throws<CorruptionException>(() => ArchivedCompaction.Decode(bytes, PathOf(what == "another name" ? 4 : 5)));
        Assert.Contains(what == "short" ? "AC1" : "AC4", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_manifest_keeps_the_snapshots_commit_time_and_refuses_a_negative_one()
    {
        var manifest = new BackupManifest(1, 10, 2, 4096, 3, 8, 1_764_000_000_500, 1_764_000_000_000, Compacted: false);
        var bytes = manifest.Encode();
        Assert.Equal(1_764_000_000_000, BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(BackupManifest.SnapshotCommitTimeOffset)));
        Assert.Equal(manifest, BackupManifest.Decode(bytes, "voron.backup"));
        Assert.Equal(0, BackupManifest.Decode((manifest with { SnapshotCommitTime = 0 }).Encode(), "voron.backup").SnapshotCommitTime); // BM5: unknown
        var e = Assert.Throws<CorruptionException>(() => BackupManifest.Decode((manifest with { SnapshotCommitTime = -1 }).Encode(), "voron.backup"));
        Assert.Contains("BM4", e.Message, StringComparison.Ordinal);
    }
}
