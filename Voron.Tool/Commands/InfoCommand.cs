using System.CommandLine;
using System.Text.Json;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron info &lt;store&gt; [--archive DIR] [--json]</c>: what the store's files say — format, page size, store
/// id, whether it is encrypted (no key needed), every file's size, the last transaction, the journal, whether it was closed cleanly, who
/// holds the lock, and with <c>--archive</c> how far that journal archive is shipped (its
/// <c>voron.shipped</c> state file, <see cref="JournalArchive.ReadShippedState"/>: no network call) — read by <see cref="StorageEnvironment.Inspect"/>, which never opens the store,
/// so it works while an application has it open. Exit 0 whenever the files could be read, problems
/// or not; 1 only when they cannot (neither header copy is valid). <see cref="StoreInfo.Problems"/>
/// mixes damage (a damaged journal record) with what an open handles by design (a torn last
/// record a crash left, a missing header copy), as sentences the tool cannot tell apart, and a
/// crash is no reason for a failing exit: info lists them and points to <c>voron check</c>, which
/// is the judge of damage (its exit code 1).
/// </summary>
internal static class InfoCommand
{
    public static Command Create(ToolConsole console)
    {
        var store = InspectOutput.StoreArgument();
        var json = InspectOutput.JsonOption("print JSON instead of tables");
        var archive = new Option<string?>("--archive")
        {
            Description = "the store's journal archive directory (JournalArchiveDirectory): also show how far it is shipped to its destination, from its voron.shipped file",
            HelpName = "DIR",
        };
        var command = new Command("info", "what the store's files say (format, sizes, transactions, journal, lock), without opening it: works while another process has it open")
        {
            store,
            archive,
            json,
        };
        command.SetAction((result, _) => Task.FromResult(Run(console, result.GetValue(store)!, result.GetValue(archive), result.GetValue(json))));
        return command;
    }

    private static int Run(ToolConsole console, string path, string? archive, bool json)
    {
        var info = StorageEnvironment.Inspect(StoreAccess.RequireStore(path, allowBackup: true));
        if (archive != null && !Directory.Exists(archive))
        {
            throw new ToolException(ExitCodes.Usage, $"There is no journal archive at '{archive}': give --archive the directory the store's JournalArchiveDirectory names.");
        }

        var shipping = archive == null ? null : new Shipping(archive, JournalArchive.ReadShippedState(archive), info);
        if (json)
        {
            InspectOutput.Json(console.Out, writer => WriteJson(writer, info, shipping));
        }
        else
        {
            WriteTables(console, info, shipping);
        }

        if (info.Problems.Count > 0)
        {
            console.Error.WriteLine($"{InspectOutput.Count(info.Problems.Count, "problem", "problems")} listed: run `voron check {path}` to check every page " +
                                    "(copy the directory first if it may be damaged: check opens the store, and an open recovers it).");
        }

        return ExitCodes.Ok;
    }

    /// <summary>What <c>--archive</c> adds: the archive's shipped state, read beside the store's info.</summary>
    private sealed record Shipping(string Archive, ArchiveShippedState? State, StoreInfo Info)
    {
        /// <summary>Whether the state file is this store's (a compacted or restored store ships under a new id).</summary>
        public bool SameStore => State != null && string.Equals(State.Lineage, Info.StoreId, StringComparison.OrdinalIgnoreCase);

        /// <summary>Transactions the store holds that the destination does not (0 when the state file does not name its transaction).</summary>
        public long TransactionsBehind => State is { LastShippedTransaction: > 0 } state && SameStore ? Math.Max(0, Info.LastTransactionId - state.LastShippedTransaction) : 0;

        public string Describe()
        {
            if (State == null)
            {
                return $"'{Archive}' holds no voron.shipped file: the store does not ship this archive (no ArchiveDestination), or has not opened since it was set";
            }

            if (!SameStore)
            {
                return $"'{Archive}' ships store {State.Lineage}, not this store ({Info.StoreId}): a compaction or a restore gives a store a new id";
            }

            var through = State.LastShippedFile == 0
                ? "nothing shipped yet"
                : $"shipped through journal file {InspectOutput.Count(State.LastShippedFile)}" +
                  (State.LastShippedTransaction > 0 ? $" (transaction {InspectOutput.Count(State.LastShippedTransaction)})" : "");
            var pending = State.PendingFiles == 0
                ? "no archived file waits"
                : $"{InspectOutput.Count(State.PendingFiles, "archived file", "archived files")} ({InspectOutput.Bytes(State.PendingBytes)}) wait to ship";
            var behind = State.LastShippedTransaction > 0 ? $"; the store is {InspectOutput.Count(TransactionsBehind, "transaction", "transactions")} ahead" : "";
            return $"{through}; {pending}{behind}";
        }
    }

    private static void WriteTables(ToolConsole console, StoreInfo info, Shipping? shipping)
    {
        var output = InspectOutput.Tables(console);
        var summary = InspectOutput.Table("Property", "Value");
        InspectOutput.Row(summary, "Store", info.Directory);
        InspectOutput.Row(summary, "Format version", info.FormatVersion.ToString(System.Globalization.CultureInfo.InvariantCulture));
        InspectOutput.Row(summary, "Page size", InspectOutput.Bytes(info.PageSize));
        InspectOutput.Row(summary, "Store id", info.StoreId);
        InspectOutput.Row(summary, "Encrypted", DescribeEncryption(info));
        InspectOutput.Row(summary, "Header revision", InspectOutput.Count(info.HeaderRevision));
        InspectOutput.Row(summary, "Last transaction", InspectOutput.Count(info.LastTransactionId));
        InspectOutput.Row(summary, "Synced to the data file", $"up to transaction {InspectOutput.Count(info.LastSyncedTransactionId)}");
        InspectOutput.Row(summary, "Journal", info.JournalTransactions == 0
            ? "nothing to replay"
            : $"{InspectOutput.Count(info.JournalTransactions)} transaction(s) to replay at the next open");
        InspectOutput.Row(summary, "Closed cleanly", info.ClosedCleanly ? "yes" : "no (open now, or it crashed or was killed: the next open recovers from the journal)");
        InspectOutput.Row(summary, "Lock", DescribeLock(info.Lock));
        if (shipping != null)
        {
            InspectOutput.Row(summary, "Shipping", shipping.Describe());
        }

        output.Write(summary);

        var files = InspectOutput.Table("File", "Size", "Bytes");
        foreach (var file in info.Files)
        {
            InspectOutput.Row(files, file.Name, InspectOutput.Bytes(file.Bytes), InspectOutput.Count(file.Bytes));
        }

        output.Write(files);

        if (info.JournalFiles.Count > 0)
        {
            var journal = InspectOutput.Table("Journal file", "Size", "State");
            foreach (var file in info.JournalFiles)
            {
                InspectOutput.Row(journal, InspectOutput.Count(file.Number), InspectOutput.Bytes(file.Bytes), file.State);
            }

            output.Write(journal);
        }

        InspectOutput.Line(output, info.Problems.Count == 0 ? "Problems: none" : "Problems:");
        foreach (var problem in info.Problems)
        {
            InspectOutput.Line(output, "  - " + problem);
        }
    }

    /// <summary>"yes (AesGcm)" or "no": read from the header, so without the key.</summary>
    internal static string DescribeEncryption(StoreInfo info) => info.IsEncrypted ? $"yes ({info.EncryptionAlgorithm})" : "no";

    /// <summary>The lock line: held by whom, or who opened it last.</summary>
    internal static string DescribeLock(StoreLockInfo holder)
    {
        var who = holder.ProcessId is { } pid
            ? $"process {pid}{(holder.ProcessName is { Length: > 0 } name ? $" ({name})" : "")}"
            : "an opener the lock file does not name";
        var how = string.Join(", ", new[]
        {
            holder.Durability is { } durability ? durability.ToString().ToLowerInvariant() + " mode" : null,
            holder.OpenedAt is { } at ? "opened " + InspectOutput.Time(at) : null,
        }.Where(part => part != null));
        var detail = how.Length > 0 ? $"{who}, {how}" : who;
        return holder.IsHeld ? $"held by {detail}" : holder.ProcessId is null && holder.OpenedAt is null ? "not held" : $"not held (last opened by {detail})";
    }

    private static void WriteJson(Utf8JsonWriter writer, StoreInfo info, Shipping? shipping)
    {
        writer.WriteStartObject();
        writer.WriteString("directory", info.Directory);
        writer.WriteNumber("formatVersion", info.FormatVersion);
        writer.WriteNumber("pageSize", info.PageSize);
        writer.WriteString("storeId", info.StoreId);
        writer.WriteBoolean("encrypted", info.IsEncrypted);
        writer.WriteString("encryptionAlgorithm", info.EncryptionAlgorithm);
        writer.WriteNumber("headerRevision", info.HeaderRevision);
        writer.WriteNumber("lastTransactionId", info.LastTransactionId);
        writer.WriteNumber("lastSyncedTransactionId", info.LastSyncedTransactionId);
        writer.WriteNumber("journalTransactions", info.JournalTransactions);
        writer.WriteBoolean("closedCleanly", info.ClosedCleanly);
        InspectOutput.ObjectArray(writer, "files", info.Files, file =>
        {
            writer.WriteString("name", file.Name);
            writer.WriteNumber("bytes", file.Bytes);
        });
        InspectOutput.ObjectArray(writer, "journalFiles", info.JournalFiles, file =>
        {
            writer.WriteNumber("number", file.Number);
            writer.WriteNumber("bytes", file.Bytes);
            writer.WriteString("state", file.State);
        });
        writer.WriteStartObject("lock");
        writer.WriteBoolean("isHeld", info.Lock.IsHeld);
        WriteNullable(writer, "processId", info.Lock.ProcessId);
        writer.WriteString("processName", info.Lock.ProcessName);
        writer.WriteString("durability", info.Lock.Durability?.ToString());
        writer.WriteString("openedAt", info.Lock.OpenedAt?.ToString("O", System.Globalization.CultureInfo.InvariantCulture));
        writer.WriteEndObject();
        if (shipping != null)
        {
            writer.WriteStartObject("shipping");
            writer.WriteString("archive", shipping.Archive);
            writer.WriteBoolean("stateFile", shipping.State != null);
            if (shipping.State is { } state)
            {
                writer.WriteString("lineage", state.Lineage);
                writer.WriteBoolean("sameStore", shipping.SameStore);
                writer.WriteNumber("lastShippedFile", state.LastShippedFile);
                writer.WriteNumber("lastShippedTransaction", state.LastShippedTransaction);
                writer.WriteNumber("pendingFiles", state.PendingFiles);
                writer.WriteNumber("pendingBytes", state.PendingBytes);
                writer.WriteNumber("transactionsBehind", shipping.TransactionsBehind);
            }

            writer.WriteEndObject();
        }

        writer.WriteStartArray("problems");
        foreach (var problem in info.Problems)
        {
            writer.WriteStringValue(problem);
        }

        writer.WriteEndArray();
        writer.WriteEndObject();
    }

    private static void WriteNullable(Utf8JsonWriter writer, string name, long? value)
    {
        if (value is { } number)
        {
            writer.WriteNumber(name, number);
        }
        else
        {
            writer.WriteNull(name);
        }
    }
}
