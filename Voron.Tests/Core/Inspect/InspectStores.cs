using Voron.Platform.ReadOnly;

namespace Voron.Tests.Core.Inspect;

/// <summary>Real store directories for the Inspect tests, and what their files hold.</summary>
internal static class InspectStores
{
    /// <summary>Options for a real directory: no background flush (tests decide when the data file is written), small journal files.</summary>
    public static StorageEnvironmentOptions Options(string directory, bool portable = false, DurabilityMode durability = DurabilityMode.Durable)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.BackgroundFlush = false;
        options.JournalFileSize = 1 << 20;
        options.UsePortableFileSystem = portable;
        options.Durability = durability;
        return options;
    }

    /// <summary>One commit putting key <paramref name="i"/>; returns its transaction id.</summary>
    public static long Commit(StorageEnvironment env, int i, int valueSize = 100, Random? random = null)
    {
        var value = new byte[valueSize];
        (random ?? new Random(i)).NextBytes(value); // incompressible: the record spans many sectors
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(Encoding.ASCII.GetBytes($"key-{i:D6}"), value);
        tx.Commit();
        return env.LastCommittedTransactionId;
    }

    /// <summary>A store with <paramref name="commits"/> commits, left as a killed process leaves it (no final flush) unless <paramref name="clean"/>.</summary>
    public static void Create(string directory, int commits, bool clean, int valueSize = 100)
    {
        var env = StorageEnvironment.Open(Options(directory));
        for (var i = 0; i < commits; i++)
        {
            Commit(env, i, valueSize);
        }

        if (clean)
        {
            env.Dispose();
        }
        else
        {
            env.CloseWithoutFlush();
        }
    }

    /// <summary>Every file under <paramref name="directory"/>, by relative path, with its bytes.</summary>
    public static SortedDictionary<string, byte[]> Files(string directory) =>
        new(Directory.EnumerateFiles(directory, "*", SearchOption.AllDirectories)
            .ToDictionary(p => Path.GetRelativePath(directory, p), ReadShared), StringComparer.Ordinal);

    /// <summary>The journal records after the newest header's position, as recovery finds them (read-only).</summary>
    public static List<RecoveredRecordPlace> Records(string directory)
    {
        var layout = new Voron.Header.StoreLayout(directory);
        var header = Voron.Header.HeaderFile.ReadNewest(ReadOnlyFileSystem.Instance, layout)!.Value;
        var records = new List<RecoveredRecordPlace>();
        JournalReader.Recover(ReadOnlyFileSystem.Instance, layout.JournalDirectory, header.StoreId,
            new JournalPosition(header.JournalFile, header.JournalOffset), header.LastSyncedTxId + 1,
            r => records.Add(new RecoveredRecordPlace(r.TransactionId, JournalFiles.PathOf(layout.JournalDirectory, r.Start.FileNumber), r.Start.Offset, r.End.Offset)));
        return records;
    }

    /// <summary>Writes <paramref name="bytes"/> at <paramref name="offset"/> of <paramref name="path"/>, in place.</summary>
    public static void Overwrite(string path, long offset, byte[] bytes)
    {
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite);
        stream.Position = offset;
        stream.Write(bytes);
    }

    private static byte[] ReadShared(string path)
    {
        try
        {
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            var bytes = new byte[stream.Length];
            stream.ReadExactly(bytes);
            return bytes;
        }
        catch (IOException) when (Path.GetFileName(path) == "voron.lock")
        {
            // The lock file of a store held open cannot be opened by .NET (its flock, or FileShare.None on Windows).
            return ReadLockFile(path);
        }
    }

    private static byte[] ReadLockFile(string path)
    {
        var probe = Voron.Platform.LockFileProbe.Probe(path);
        return Encoding.UTF8.GetBytes($"{probe.Length}:{probe.Lock}"); // its length and what it says stand for its bytes
    }
}

/// <summary>Where a journal record lies: its transaction, file and [start, end) offsets.</summary>
internal sealed record RecoveredRecordPlace(long TransactionId, string File, long Start, long End);
