using System.CommandLine;
using System.Text.Json;
using Voron.Documents;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron stat &lt;store&gt; [--json]</c>: opens the store and prints its statistics — trees
/// (pages by kind, fill), free space (sections summarised by fill; every section in JSON), the
/// oldest reader, the journal files, and when it holds them: collections, indexes and SQLite
/// databases.
/// </summary>
internal static class StatCommand
{
    public static Command Create(ToolConsole console)
    {
        var store = InspectOutput.StoreArgument();
        var json = InspectOutput.JsonOption("print JSON (every free-space section) instead of tables");
        var command = new Command("stat", "the store's statistics: trees, free space, readers, journal, collections, indexes, SQLite databases")
        {
            store,
            json,
        };
        command.SetAction(async (result, _) => await RunAsync(console, result.GetValue(store)!, result.GetValue(json)).ConfigureAwait(false));
        return command;
    }

    private static async Task<int> RunAsync(ToolConsole console, string path, bool json)
    {
        using var environment = StoreAccess.OpenEnvironment(path);
        DocumentStoreStatistics? documents = null;
        var documentStore = StoreAccess.OpenDocumentsIfAny(environment);
        if (documentStore != null)
        {
            await using (documentStore.ConfigureAwait(false))
            {
                documents = documentStore.GetStatistics();
            }
        }

        var engine = documents?.Engine ?? environment.GetStatistics();
        var databases = InspectSqlite.List(environment);
        if (json)
        {
            InspectOutput.Json(console.Out, writer => WriteJson(writer, engine, documents, databases));
        }
        else
        {
            WriteTables(console, engine, documents, databases);
        }

        return ExitCodes.Ok;
    }

    /// <summary>The fill buckets sections are counted in: used pages / pages, upper bounds.</summary>
    private static readonly (double Upper, string Label)[] FillBuckets =
    [
        (0.0, "empty (0%)"), (0.25, "1-25%"), (0.5, "26-50%"), (0.75, "51-75%"), (0.9999, "76-99%"), (1.0, "full (100%)"),
    ];

    private static void WriteTables(ToolConsole console, StoreStatistics engine, DocumentStoreStatistics? documents, IReadOnlyList<InspectSqlite.PageFileInfo> databases)
    {
        var output = InspectOutput.Tables(console);
        var summary = InspectOutput.Table("Store", "Value");
        InspectOutput.Row(summary, "Transaction", InspectOutput.Count(engine.TransactionId));
        InspectOutput.Row(summary, "Data file", InspectOutput.Bytes(engine.DataFileBytes));
        InspectOutput.Row(summary, "Allocated pages", InspectOutput.Count(engine.AllocatedPages));
        InspectOutput.Row(summary, "Free pages", $"{InspectOutput.Count(engine.FreePages)} ({InspectOutput.Count(engine.PendingFreePages)} pending release)");
        InspectOutput.Row(summary, "Scratch", InspectOutput.Bytes(engine.ScratchBytes));
        InspectOutput.Row(summary, "Page versions in memory", InspectOutput.Bytes(engine.PageVersionMemoryBytes));
        if (engine.DecryptedPages is { } cache)
        {
            InspectOutput.Row(summary, "Decrypted page cache",
                $"{InspectOutput.Bytes(cache.Bytes)} of {InspectOutput.Bytes(cache.CapacityBytes)} ({InspectOutput.Count(cache.Pages)} entries; {InspectOutput.Count(cache.Misses)} misses, {InspectOutput.Count(cache.Evictions)} evictions since the open)");
        }

        InspectOutput.Row(summary, "Oldest reader", engine.OldestReader is { } pin
            ? $"transaction {InspectOutput.Count(pin.SnapshotTransactionId)}, {pin.Age.TotalSeconds:0.0} s old, holding back {InspectOutput.Count(pin.HeldBackTransactions)} transaction(s), {InspectOutput.Bytes(pin.HeldBackBytes)}"
            : "none");
        output.Write(summary);

        var trees = InspectOutput.Table("Tree", "Entries", "Depth", "Leaf pages", "Branch pages", "Overflow pages", "Raw pages", "Leaf fill", "Branch fill");
        foreach (var tree in engine.Trees)
        {
            InspectOutput.Row(trees, tree.Name, InspectOutput.Count(tree.Entries), tree.Depth.ToString(System.Globalization.CultureInfo.InvariantCulture),
                InspectOutput.Count(tree.LeafPages), InspectOutput.Count(tree.BranchPages), InspectOutput.Count(tree.OverflowPages), InspectOutput.Count(tree.RawPages),
                InspectOutput.Percent(tree.LeafFill), tree.BranchPages == 0 ? "-" : InspectOutput.Percent(tree.BranchFill));
        }

        output.Write(trees);

        var sections = InspectOutput.Table("Free-space sections by fill", "Sections", "Pages", "Free pages");
        foreach (var (label, count, pages, free) in SectionHistogram(engine.Sections))
        {
            InspectOutput.Row(sections, label, InspectOutput.Count(count), InspectOutput.Count(pages), InspectOutput.Count(free));
        }

        output.Write(sections);

        if (engine.JournalFiles.Count > 0)
        {
            var journal = InspectOutput.Table("Journal file", "Size", "State");
            foreach (var file in engine.JournalFiles)
            {
                InspectOutput.Row(journal, InspectOutput.Count(file.Number), InspectOutput.Bytes(file.Bytes), file.State);
            }

            output.Write(journal);
        }

        if (documents != null)
        {
            var collections = InspectOutput.Table("Collection", "Documents", "Bytes");
            foreach (var collection in documents.Collections)
            {
                InspectOutput.Row(collections, collection.Name, InspectOutput.Count(collection.Documents), InspectOutput.Bytes(collection.Bytes));
            }

            output.Write(collections);

            var indexes = InspectOutput.Table("Index", "Collection", "Entries", "Bytes");
            foreach (var index in documents.Indexes)
            {
                InspectOutput.Row(indexes, index.Name, index.Collection, InspectOutput.Count(index.Entries), InspectOutput.Bytes(index.Bytes));
            }

            output.Write(indexes);
        }

        if (databases.Count > 0)
        {
            var files = InspectOutput.Table("Page file", "Kind", "Size", "Page size", "Pages");
            foreach (var file in databases)
            {
                InspectOutput.Row(files, file.Name, file.Damage != null ? "damaged (run voron check)" : file.IsDatabase ? "SQLite database" : "page file", InspectOutput.Bytes(file.Bytes),
                    InspectOutput.Bytes(file.IsDatabase ? file.SqlitePageSize : PageFile.BlockSize), InspectOutput.Count(file.Pages));
            }

            output.Write(files);
        }
    }

    /// <summary>Sections counted by how full they are (used pages over pages), one row per non-empty bucket.</summary>
    internal static IEnumerable<(string Label, int Sections, long Pages, long FreePages)> SectionHistogram(IReadOnlyList<SectionStatistics> sections)
    {
        var counts = new (int Sections, long Pages, long Free)[FillBuckets.Length];
        foreach (var section in sections)
        {
            var fill = section.Pages == 0 ? 0 : (section.Pages - section.FreePages) / (double)section.Pages;
            var bucket = Array.FindIndex(FillBuckets, b => fill <= b.Upper);
            bucket = bucket < 0 ? FillBuckets.Length - 1 : bucket;
            counts[bucket] = (counts[bucket].Sections + 1, counts[bucket].Pages + section.Pages, counts[bucket].Free + section.FreePages);
        }

        for (var i = 0; i < counts.Length; i++)
        {
            if (counts[i].Sections > 0)
            {
                yield return (FillBuckets[i].Label, counts[i].Sections, counts[i].Pages, counts[i].Free);
            }
        }
    }

    private static void WriteJson(Utf8JsonWriter writer, StoreStatistics engine, DocumentStoreStatistics? documents, IReadOnlyList<InspectSqlite.PageFileInfo> databases)
    {
        writer.WriteStartObject();
        writer.WriteNumber("transactionId", engine.TransactionId);
        writer.WriteNumber("dataFileBytes", engine.DataFileBytes);
        writer.WriteNumber("allocatedPages", engine.AllocatedPages);
        writer.WriteNumber("freePages", engine.FreePages);
        writer.WriteNumber("pendingFreePages", engine.PendingFreePages);
        writer.WriteNumber("scratchBytes", engine.ScratchBytes);
        writer.WriteNumber("pageVersionMemoryBytes", engine.PageVersionMemoryBytes);
        if (engine.DecryptedPages is { } cache)
        {
            writer.WriteStartObject("decryptedPages");
            writer.WriteNumber("capacityBytes", cache.CapacityBytes);
            writer.WriteNumber("bytes", cache.Bytes);
            writer.WriteNumber("pages", cache.Pages);
            writer.WriteNumber("misses", cache.Misses);
            writer.WriteNumber("evictions", cache.Evictions);
            writer.WriteEndObject();
        }

        if (engine.OldestReader is { } pin)
        {
            writer.WriteStartObject("oldestReader");
            writer.WriteNumber("snapshotTransactionId", pin.SnapshotTransactionId);
            writer.WriteNumber("ageSeconds", pin.Age.TotalSeconds);
            writer.WriteNumber("heldBackTransactions", pin.HeldBackTransactions);
            writer.WriteNumber("heldBackBytes", pin.HeldBackBytes);
            writer.WriteEndObject();
        }
        else
        {
            writer.WriteNull("oldestReader");
        }

        InspectOutput.ObjectArray(writer, "trees", engine.Trees, tree =>
        {
            writer.WriteString("name", tree.Name);
            writer.WriteNumber("entries", tree.Entries);
            writer.WriteNumber("depth", tree.Depth);
            writer.WriteNumber("leafPages", tree.LeafPages);
            writer.WriteNumber("branchPages", tree.BranchPages);
            writer.WriteNumber("overflowPages", tree.OverflowPages);
            writer.WriteNumber("rawPages", tree.RawPages);
            writer.WriteNumber("leafFill", tree.LeafFill);
            writer.WriteNumber("branchFill", tree.BranchFill);
        });
        InspectOutput.ObjectArray(writer, "sections", engine.Sections, section =>
        {
            writer.WriteNumber("index", section.Index);
            writer.WriteNumber("pages", section.Pages);
            writer.WriteNumber("freePages", section.FreePages);
        });
        InspectOutput.ObjectArray(writer, "journalFiles", engine.JournalFiles, file =>
        {
            writer.WriteNumber("number", file.Number);
            writer.WriteNumber("bytes", file.Bytes);
            writer.WriteString("state", file.State);
        });
        InspectOutput.ObjectArray(writer, "collections", documents?.Collections ?? [], collection =>
        {
            writer.WriteString("name", collection.Name);
            writer.WriteNumber("documents", collection.Documents);
            writer.WriteNumber("bytes", collection.Bytes);
        });
        InspectOutput.ObjectArray(writer, "indexes", documents?.Indexes ?? [], index =>
        {
            writer.WriteString("collection", index.Collection);
            writer.WriteString("name", index.Name);
            writer.WriteNumber("entries", index.Entries);
            writer.WriteNumber("bytes", index.Bytes);
        });
        InspectOutput.ObjectArray(writer, "pageFiles", databases, file =>
        {
            writer.WriteString("name", file.Name);
            writer.WriteBoolean("sqliteDatabase", file.IsDatabase);
            writer.WriteString("damage", file.Damage?.Message);
            writer.WriteNumber("bytes", file.Bytes);
            writer.WriteNumber("pageSize", file.IsDatabase ? file.SqlitePageSize : PageFile.BlockSize);
            writer.WriteNumber("pages", file.Pages);
        });
        writer.WriteEndObject();
    }
}
