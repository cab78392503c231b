using Microsoft.Extensions.Logging;

namespace Voron.Documents.AspNetCore.Logging;

/// <summary>
/// Every message the hosting layer logs, source-generated (no formatting unless the level is on),
/// with stable event ids, under the category <see cref="Category"/>. None is on a request's path (H4).
/// </summary>
internal static partial class DocumentStoreLog
{
    public const string Category = "Voron.Documents";

    [LoggerMessage(EventId = 1, EventName = "StoreOpened", Level = LogLevel.Information,
        Message = "Voron document store{Store} opened at {Path} in {ElapsedMs:F1} ms (recovery included; last transaction {TransactionId}, durability {Durability})")]
    public static partial void StoreOpened(ILogger logger, string store, string path, double elapsedMs, long transactionId, DurabilityMode durability);

    [LoggerMessage(EventId = 2, EventName = "StoreOpenFailed", Level = LogLevel.Error,
        Message = "Voron document store{Store} could not be opened at {Path}: {Reason}")]
    public static partial void StoreOpenFailed(ILogger logger, string store, string path, string reason, Exception? exception);

    [LoggerMessage(EventId = 3, EventName = "StoreFailed", Level = LogLevel.Critical,
        Message = "Voron document store{Store} at {Path} stopped accepting writes (fail-stop) after an I/O failure: {Reason} Reads still work; restart the app to reopen the store, which recovers every acknowledged save from the journal.")]
    public static partial void StoreFailed(ILogger logger, string store, string path, string reason, Exception exception);

    [LoggerMessage(EventId = 4, EventName = "SlowCommit", Level = LogLevel.Warning,
        Message = "Slow commit on Voron document store{Store} at {Path}: a journal write and its fdatasync took {ElapsedMs:F1} ms (threshold {ThresholdMs:F0} ms)")]
    public static partial void SlowCommit(ILogger logger, string store, string path, double elapsedMs, double thresholdMs);

    [LoggerMessage(EventId = 5, EventName = "Flushed", Level = LogLevel.Debug,
        Message = "Voron document store{Store}: flushed {Transactions} transactions (through {TransactionId}) to the data file: {Pages} pages, {Bytes} bytes, {Seeks} seeks in {ElapsedMs:F1} ms")]
    public static partial void Flushed(ILogger logger, string store, int transactions, long transactionId, long pages, long bytes, int seeks, double elapsedMs);

    [LoggerMessage(EventId = 6, EventName = "IndexEnsured", Level = LogLevel.Information,
        Message = "Voron document store{Store}: created and built {Index}")]
    public static partial void IndexEnsured(ILogger logger, string store, string index);

    [LoggerMessage(EventId = 7, EventName = "StoreClosed", Level = LogLevel.Information,
        Message = "Voron document store{Store} at {Path} closed in {ElapsedMs:F1} ms (queued saves completed, data file flushed, lock released)")]
    public static partial void StoreClosed(ILogger logger, string store, string path, double elapsedMs);

    [LoggerMessage(EventId = 8, EventName = "ReplicaIndexMissing", Level = LogLevel.Warning,
        Message = "Voron document store{Store} is a read replica and does not hold index {Index} ready as defined ({Reason}): queries that need it are refused until the primary builds it and the replica applies that")]
    public static partial void ReplicaIndexMissing(ILogger logger, string store, string index, string reason);
}
