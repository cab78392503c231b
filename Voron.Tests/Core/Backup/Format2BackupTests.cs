using Voron.Backup;
using Voron.Header;
using Voron.Testing;

namespace Voron.Tests.Core.Backup;

/// <summary>
/// A backup and a journal archive of a format-2 store restore in this build, to every point:
/// format-2 header copies and journal records read as format 3 (Header/HeaderFile.cs and
/// Journal/JournalRecord.cs, Compatibility), and the restored store says format 3.
/// </summary>
public sealed class Format2BackupTests(ITestOutputHelper output)
{
    /// <summary>Rewrites the version of every record in the archived journal files to 2, re-stamping its checksums as a format-2 writer would have.</summary>
    private static int MakeArchiveFormat2(string archive, ulong storeId)
    {
        var fs = StorageEnvironmentOptions.ForDirectory(archive).FileSystem;
        var rewritten = 0;
        foreach (var number in JournalFiles.List(fs, archive))
        {
            using var file = fs.Open(JournalFiles.PathOf(archive, number), FileOpenMode.OpenExisting);
            var sector = new byte[JournalRecord.SectorSize];
            for (long offset = 0; offset + sector.Length <= file.Length;)
            {
                if (file.Read(offset, sector) < sector.Length || !JournalRecordHeader.TryRead(sector, new RecordBinding(storeId, number), out var header))
                {
                    offset += JournalRecord.Alignment;
                    continue;
                }

                var record = new byte[header.RecordSize];
                file.Read(offset, record);
                var body = (int)(record.Length / JournalRecord.SectorSize * JournalRecord.SectorDataSize);
                JournalRecord.Unframe(record, body);
                BinaryPrimitives.WriteUInt16LittleEndian(record.AsSpan(JournalRecord.FormatVersionOffset), JournalRecord.FormatVersion2);
                BinaryPrimitives.WriteUInt32LittleEndian(record.AsSpan(JournalRecord.HeaderChecksumOffset),
                    JournalRecord.ComputeHeaderChecksum(record.AsSpan(0, JournalRecord.HeaderSize), storeId, number));
                JournalRecord.Frame(record, body, JournalRecord.SectorSeed(storeId, number, header.TransactionId));
                file.Write(offset, record);
                rewritten++;
                offset += record.Length;
            }
        }

        return rewritten;
    }

    [Fact]
    public async Task A_backup_and_journal_archive_of_a_format2_store_restore_to_every_transaction_and_to_a_time()
    {
        var seed = TestSeed.Next(output, nameof(A_backup_and_journal_archive_of_a_format2_store_restore_to_every_transaction_and_to_a_time));
        using var history = await ArchivedHistory.Create(seed, 120);
        var fs = StorageEnvironmentOptions.ForDirectory(history.Backup).FileSystem;
        var manifest = BackupManifest.Read(fs, history.Backup);
        foreach (var name in new[] { "headers.one", "headers.two" })
        {
            var path = Path.Combine(history.Backup, name);
            if (File.Exists(path))
            {
                var bytes = File.ReadAllBytes(path);
                BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset), HeaderFile.FormatVersion2);
                BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));
                File.WriteAllBytes(path, bytes);
            }
        }

        Assert.True(MakeArchiveFormat2(history.Archive, manifest.SourceStoreId) > 0);

        var full = await StorageEnvironment.RestoreAsync(history.Backup, history.Combine("full"), new RestoreOptions { JournalArchiveDirectory = history.Archive });
        Assert.True(full.TransactionsReplayed > 0);
        StoreContents.AssertStore(full.Directory, history.States[full.TransactionId], full.TransactionId);
        Assert.Equal(HeaderFile.FormatVersion, HeaderFile.ReadNewest(fs, new StoreLayout(full.Directory))!.Value.FormatVersion);

        for (var target = history.BackupTxId; target <= full.TransactionId; target++)
        {
            var destination = history.Combine($"at-{target}");
            var result = await StorageEnvironment.RestoreAsync(history.Backup, destination,
                new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTransactionId = target });
            StoreContents.AssertStore(destination, history.States[target], target);
            Directory.Delete(destination, recursive: true);
        }

        var timed = await StorageEnvironment.RestoreAsync(history.Backup, history.Combine("timed"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTime = history.TimeBetween });
        StoreContents.AssertStore(timed.Directory, history.States[history.TimedTxId], history.TimedTxId);
    }
}
