using Voron.Header;
using Voron.Journal;
using Voron.Platform;

namespace Voron.Diagnostics;

/// <summary>The journal part of a look (SI3): recovery's scan, applied to nothing.</summary>
internal static partial class StoreInspector
{
    /// <summary>What the journal holds past the header: the transaction an open would end with, how many records it would replay, and whether nothing at all (not even a torn record) lies there.</summary>
    private readonly record struct JournalScan(long LastTransactionId, long Transactions, bool Clean);

    /// <summary>SI3: the scan under Strict, then, if Strict refuses, under the default mode to tell a torn tail from damage.</summary>
    private static JournalScan ScanJournal(IFileSystem fileSystem, StoreLayout layout, HeaderRecord header, List<string> problems)
    {
        var strict = Scan(fileSystem, layout, header, JournalTailRecovery.Strict);
        if (strict.Failure == null)
        {
            return new JournalScan(strict.LastTransactionId, strict.LastTransactionId - header.LastSyncedTxId, Clean: true);
        }

        var lenient = Scan(fileSystem, layout, header, JournalTailRecovery.DiscardTornWrite);
        if (lenient.Failure == null)
        {
            problems.Add($"The journal ends with a torn write (a crash interrupted it; it was never acknowledged in durable mode), which an open discards: {strict.Failure.Message}");
            return new JournalScan(lenient.LastTransactionId, lenient.LastTransactionId - header.LastSyncedTxId, Clean: false);
        }

        problems.Add(lenient.Failure is CorruptionException
            ? $"The journal is damaged after transaction {lenient.LastTransactionId}; an open refuses the store until it is restored from a backup " +
              $"(or opened with JournalTailRecovery.DiscardAnyDamage, losing what follows): {lenient.Failure.Message}"
            : $"The journal could not be read after transaction {lenient.LastTransactionId} (if the store is open, it may have changed meanwhile): {lenient.Failure.Message}");
        return new JournalScan(lenient.LastTransactionId, lenient.LastTransactionId - header.LastSyncedTxId, Clean: false);
    }

    /// <summary>
    /// One recovery scan (JournalReader.Recover) from the header's position, replaying into
    /// nothing: the last valid transaction it reached, and the exception that stopped it (a
    /// <see cref="CorruptionException"/>, or an I/O error when files change under a running store).
    /// </summary>
    private static (long LastTransactionId, Exception? Failure) Scan(IFileSystem fileSystem, StoreLayout layout, HeaderRecord header, JournalTailRecovery mode)
    {
        var last = header.LastSyncedTxId;
        try
        {
            var result = JournalReader.Recover(fileSystem, layout.JournalDirectory, header.StoreId,
                new JournalPosition(header.JournalFile, header.JournalOffset), header.LastSyncedTxId + 1,
                record =>
                {
                    // What recovery checks as it replays (StorageEnvironment.Open.cs: the state, R8, R9); nothing is written.
                    var file = JournalFiles.PathOf(layout.JournalDirectory, record.Start.FileNumber);
                    var state = EnvironmentState.ReadFrom(record.State.Span, file, record.Start.Offset);
                    foreach (var page in record.Pages)
                    {
                        StorageEnvironment.CheckEntryBounds(page, state, file, record.Start.Offset, record.TransactionId);
                        if (page.Encoding is JournalPageEncoding.DiffAgainstPrevious or JournalPageEncoding.DiffAgainstZeros)
                        {
                            StorageEnvironment.CheckDiff(page, file, record.Start.Offset, record.TransactionId);
                        }
                    }

                    last = record.TransactionId;
                },
                mode, sealedWithoutKey: header.Seal is not null); // SL8: a sealed record's pages are not read without the key
            return (result.LastTransactionId, null);
        }
        catch (Exception e) when (e is CorruptionException or IOException)
        {
            return (last, e);
        }
    }

    /// <summary>A format-1 store: this build does not read its journal records (an open upgrades the store only when they hold nothing new).</summary>
    private static JournalScan Format1Journal(HeaderRecord header, List<string> problems)
    {
        problems.Add("The store is format version 1: its journal was not read (this build reads format-2 records). An open upgrades it if it was closed cleanly, " +
                     "and refuses it otherwise (open and dispose it once with the build that wrote it).");
        return new JournalScan(header.LastSyncedTxId, 0, Clean: false);
    }
}
