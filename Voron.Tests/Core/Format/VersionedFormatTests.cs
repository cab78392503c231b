using System.Text.RegularExpressions;
using Voron.Archive;
using Voron.Backup;
using Voron.Compaction;
using Voron.Documents;
using Voron.Documents.Indexing;
using Voron.Documents.Storage;
using Voron.PageFiles;
using Voron.Replication;
using Voron.Tests.Codebase;

namespace Voron.Tests.Core.Format;

/// <summary>
/// Every on-disk format that carries a version says so when a newer build wrote it: a version above
/// the one this build knows is FormatVersionException naming the file and both versions ("open it
/// with that build"), never CorruptionException; a version no build writes (0) is damage. The
/// header, the journal record and the data file's identity page are held to it by
/// NewerFormatTests, the free-space pages by FreeSpaceFormatTests; the decoders below by this
/// class. A FORMAT block added to the product must be classified here, so a new format cannot
/// skip the question.
/// </summary>
public sealed partial class VersionedFormatTests
{
    private const string File = "/store/some-file";

    /// <summary>A decoder of a versioned format: the bytes it writes, where its version lies, and how to read them back.</summary>
    public sealed record Decoder(string Name, int Version, Func<byte[]> Encode, Action<byte[], int> SetVersion, Action<byte[]> Decode);

    private static readonly Decoder[] Decoders =
    [
        new("compaction marker", CompactionMarker.FormatVersion,
            () => new CompactionMarker(1, 5, 2).Encode(),
            (bytes, version) =>
            {
                BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(CompactionMarker.FormatVersionOffset), version);
                bytes.AsSpan(CompactionMarker.ChecksumOffset, 4).Clear();
                BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(CompactionMarker.ChecksumOffset), Crc32C.Compute(bytes));
            },
            bytes => Assert.NotNull(CompactionMarker.Decode(bytes, File))),
        new("backup manifest", BackupManifest.FormatVersion,
            () => new BackupManifest(1, 10, 2, 4096, 3, 8, 1_764_000_000_500, 1_764_000_000_000, Compacted: false).Encode(),
            (bytes, version) =>
            {
                BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(BackupManifest.FormatVersionOffset), version);
                BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(BackupManifest.ChecksumOffset), Crc32C.Compute(bytes.AsSpan(0, BackupManifest.ChecksumOffset)));
            },
            bytes => BackupManifest.Decode(bytes, File)),
        new("archived compaction note", ArchivedCompaction.FormatVersion,
            () => new ArchivedCompaction(1, 10, 5, 2, 12, 6, 1_764_000_000_000).Encode(),
            (bytes, version) =>
            {
                BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(ArchivedCompaction.FormatVersionOffset), version);
                BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(ArchivedCompaction.ChecksumOffset), Crc32C.Compute(bytes.AsSpan(0, ArchivedCompaction.ChecksumOffset)));
            },
            bytes => ArchivedCompaction.Decode(bytes, ArchivedCompaction.PathOf("/archive", 5))),
        new("archive object header", ArchiveObjectHeader.FormatVersion,
            () => new ArchiveObjectHeader(ArchiveObjectKind.JournalFile, 1, 2, 3, 4, 1_764_000_000_000, 0, ArchiveObjectHeader.NoHash, ArchiveObjectHeader.NoHash, 0).Encode(),
            (bytes, version) =>
            {
                BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(ArchiveObjectHeader.FormatVersionOffset), (ushort)version);
                BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(ArchiveObjectHeader.HeaderChecksumOffset), Crc32C.Compute(bytes.AsSpan(0, ArchiveObjectHeader.HeaderChecksumOffset)));
            },
            bytes => ArchiveObjectHeader.Decode(bytes, File)),
        new("page file metadata", PageFileFormat.Version,
            () =>
            {
                var value = new byte[PageFileFormat.MetadataSize];
                PageFileFormat.WriteMetadata(value, 8192, 1);
                return value;
            },
            (bytes, version) => BinaryPrimitives.WriteInt32LittleEndian(bytes, version),
            bytes => PageFileFormat.ReadMetadata(bytes, File, "main.db")),
        new("document record", DocumentRecord.RecordFormat,
            () =>
            {
                var record = DocumentRecord.Build("orders"u8, "{\"a\":1}"u8, 2048);
                DocumentRecord.Stamp(record, 5, 100);
                return record;
            },
            (bytes, version) => bytes[0] = (byte)version,
            bytes => DocumentRecord.ReadHeader(bytes, "orders/1", File)),
        new("index definition record", IndexDefinitionRecord.DefinitionFormat,
            () => new IndexDefinitionRecord(new IndexDefinition("orders", "by-customer", "customer"), Ready: true, Processed: 0, ResumeAfter: null).Encode(),
            (bytes, version) => bytes[0] = (byte)version,
            bytes => IndexDefinitionRecord.Decode("orders", "by-customer", bytes, File)),
        new("archive writer's lease", ArchiveLeaseRecord.Version,
            () => new ArchiveLeaseRecord(new string('a', 32), new string('b', 16), "vm", 42, 1_764_000_000_000).Encode(),
            (bytes, version) => bytes["voron-lease ".Length] = (byte)('0' + version), // one digit, as every version here is
            bytes => ArchiveLeaseRecord.Decode(bytes, File)),
        new("replica position", ReplicaPosition.FormatVersion,
            () => new ReplicaPosition(0x1234, 3, 8192, 17, new byte[32], 1_764_000_000_000).Encode(),
            (bytes, version) =>
            {
                BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(ReplicaPosition.FormatVersionOffset), (ushort)version);
                BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(ReplicaPosition.ChecksumOffset), Crc32C.Compute(bytes.AsSpan(0, ReplicaPosition.ChecksumOffset)));
            },
            bytes => ReplicaPosition.Decode(bytes, File)),
    ];

    public static TheoryData<string> Names => [.. Decoders.Select(d => d.Name)];

    private static Decoder Named(string name) => Decoders.Single(d => d.Name == name);

    [Theory]
    [MemberData(nameof(Names))]
    public void What_this_build_writes_it_reads(string name)
    {
        var decoder = Named(name);
        decoder.Decode(decoder.Encode());
    }

    [Theory]
    [MemberData(nameof(Names))]
    public void A_newer_version_is_FormatVersionException_naming_the_file_and_both_versions(string name)
    {
        var decoder = Named(name);
        var bytes = decoder.Encode();
        decoder.SetVersion(bytes, decoder.Version + 1);

        var error = Assert.Throws<FormatVersionException>(() => decoder.Decode(bytes));

        Assert.Equal(decoder.Version + 1, error.Found);
        Assert.Equal(decoder.Version, error.Supported);
        Assert.Contains("newer Voron build", error.Message, StringComparison.Ordinal);
        Assert.Contains(name == "archived compaction note" ? "/archive" : File, error.File, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Names))]
    public void Version_zero_is_damage_not_a_newer_format(string name)
    {
        var decoder = Named(name);
        var bytes = decoder.Encode();
        decoder.SetVersion(bytes, 0);

        Assert.Throws<CorruptionException>(() => decoder.Decode(bytes));
    }

    [Fact]
    public void A_version_1_backup_manifest_is_still_read_with_its_commit_time()
    {
        var manifest = new BackupManifest(1, 10, 2, 4096, 3, 8, 1_764_000_000_500, 1_764_000_000_000, Compacted: false);
        var bytes = manifest.Encode();
        Named("backup manifest").SetVersion(bytes, BackupManifest.FormatVersion1);

        Assert.Equal(manifest, BackupManifest.Decode(bytes, File));
    }

    /// <summary>
    /// The FORMAT blocks of the product, each with where its "newer version" rule is tested, or
    /// why it has no version of its own. A new block fails <see cref="Every_FORMAT_block_of_the_product_says_how_a_newer_version_is_refused"/>
    /// until it is added here.
    /// </summary>
    private static readonly Dictionary<string, string> Blocks = new(StringComparer.Ordinal)
    {
        ["Voron.Core/Header/HeaderFile.cs"] = "NewerFormatTests (header, format 4)",
        ["Voron.Core/Journal/JournalRecord.cs"] = "NewerFormatTests (journal record, format 4)",
        ["Voron.Core/Header/DataFileIdentity.cs"] = "NewerFormatTests (identity page)",
        ["Voron.Core/Allocation/FreeSpaceFormat.cs"] = "FreeSpaceFormatTests",
        ["Voron.Core/Compaction/CompactionMarker.cs"] = "this class",
        ["Voron.Core/Backup/BackupManifest.cs"] = "this class",
        ["Voron.Core/Journal/ArchivedCompaction.cs"] = "this class",
        ["Voron.Core/PageFiles/PageFileFormat.cs"] = "this class",
        ["Voron.Core/Archive/ArchiveObjectHeader.cs"] = "this class",
        ["Voron.Core/Archive/ArchiveLeaseRecord.cs"] = "this class",
        ["Voron.Core/Replication/ReplicaPosition.cs"] = "this class",
        ["Voron.Documents/Storage/DocumentRecord.cs"] = "this class",
        ["Voron.Documents/Indexing/IndexDefinitionRecord.cs"] = "this class",
        ["Voron.Documents/Storage/DocumentTrees.cs"] = "the store layout's version: StoreLayout refuses a newer one on open (BadInputTests)",
        ["Voron.Documents/Changes/ChangeLog.cs"] = "no version of its own: part of the document store layout (DocumentTrees.cs)",
        ["Voron.Documents/Subscriptions/SubscriptionRecord.cs"] = "no version of its own: part of the document store layout (DocumentTrees.cs)",
        ["Voron.Documents/Indexing/IndexKey.cs"] = "no version of its own: keys of index trees, under the document store layout",
        ["Voron.Core/Trees/TreeState.cs"] = "no version of its own: inside pages, under the header's format version",
        ["Voron.Core/Trees/TreePage.cs"] = "no version of its own: inside pages, under the header's format version",
        ["Voron.Core/Header/EnvironmentState.cs"] = "no version of its own: inside the header, under its format version",
        ["Voron.Core/Paging/PageHeader.cs"] = "no version of its own: under the header's format version",
        ["Voron.Core/Journal/Diff/PageDiff.cs"] = "no version of its own: named by the journal entry's Encoding, under the record's format version",
        ["Voron.Core/Compression/Lz4Block.cs"] = "the public LZ4 block format, under the record's format version",
        ["Voron.Core/Scratch/ScratchFile.cs"] = "no version: the scratch file is rebuilt on every open and never read across builds",
        ["Voron.Core/Sealing/SealFormat.cs"] = "no version of its own: inside pages and journal records, under the header's format version (no store writes it yet)",
        ["Voron.Core/Platform/LockFileRecord.cs"] = "advisory: a later version keeps version 1's fields, an unreadable record tells nothing (LF1)",
    };

    [Fact]
    public void Every_FORMAT_block_of_the_product_says_how_a_newer_version_is_refused()
    {
        var root = RepositoryRoot.Find();
        var found = ProductSources.Files(root, ProductSources.Projects(root))
            .Where(f => FormatBlock().IsMatch(System.IO.File.ReadAllText(f.Path)))
            .Select(f => f.Relative)
            .ToList();

        Assert.NotEmpty(found);
        var unclassified = found.Where(f => !Blocks.ContainsKey(f)).ToList();
        Assert.True(unclassified.Count == 0,
            "FORMAT blocks that do not say how a newer version is refused (give the decoder a FormatVersionException for a version above its own, test it, and list the file in VersionedFormatTests.Blocks):\n" +
            string.Join('\n', unclassified));
        var gone = Blocks.Keys.Where(k => !found.Contains(k)).ToList();
        Assert.True(gone.Count == 0, "VersionedFormatTests.Blocks lists files without a FORMAT block: " + string.Join(", ", gone));
    }

    [GeneratedRegex(@"^\s*///?\s*FORMAT:", RegexOptions.Multiline)]
    private static partial Regex FormatBlock();
}
