using Microsoft.Win32.SafeHandles;
using Voron.Platform.Interop;

namespace Voron.LoadTests.Measurement;

/// <summary>Where <see cref="DurableWriteProbe.Measure"/> writes.</summary>
internal enum SyncSpace
{
    /// <summary>Zero-filled and synced before the measured writes: where Voron's journal writes its records (J10 in JournalWriter.cs).</summary>
    Written,

    /// <summary>fallocate'd and never written: the first write converts the blocks, so the sync also writes the inode.</summary>
    Preallocated,

    /// <summary>At the end of the file, which grows with each write: where SQLite's WAL writes while it grows.</summary>
    Appended,
}

/// <summary>The system call that makes each write durable.</summary>
internal enum SyncCall
{
    /// <summary><c>fdatasync</c>: the data, and the metadata needed to read it back (the size); Voron's and LMDB's data sync.</summary>
    Fdatasync,

    /// <summary><c>fsync</c>: also every other inode change (modification time): what the SQLite that Microsoft.Data.Sqlite bundles calls.</summary>
    Fsync,
}

/// <summary>
/// One write followed by one sync, timed, over and over at the same size: the latency an
/// unmerged durable commit can do no better than. Used by <c>machine</c> for its whole grid and
/// by the preflight of every run (<see cref="Preflight"/>).
/// </summary>
internal static class DurableWriteProbe
{
    /// <summary>Times <paramref name="count"/> writes of <paramref name="size"/> bytes, each followed by <paramref name="call"/>.</summary>
    public static LatencySample Measure(string path, int size, int count, SyncSpace space = SyncSpace.Written, SyncCall call = SyncCall.Fdatasync)
    {
        var sample = new LatencySample();
        var buffer = new byte[size];
        Random.Shared.NextBytes(buffer);
        using (var handle = File.OpenHandle(path, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None))
        {
            var length = (long)size * count;
            if (space != SyncSpace.Appended)
            {
                // Preallocated (and, for written space, zero-filled) and synced first, as a journal
                // file is: each measured sync then flushes no size change.
                Allocate(handle, path, length);
                if (space == SyncSpace.Written)
                {
                    var zeros = new byte[1024 * 1024];
                    for (long offset = 0; offset < length; offset += zeros.Length)
                    {
                        RandomAccess.Write(handle, zeros.AsSpan(0, (int)Math.Min(zeros.Length, length - offset)), offset);
                    }
                }
            }

            Sync(handle, path, SyncCall.Fsync);
            for (var i = 0; i < count; i++)
            {
                var start = Stopwatch.GetTimestamp();
                RandomAccess.Write(handle, buffer, (long)i * size);
                Sync(handle, path, call);
                sample.AddTicks(Stopwatch.GetTimestamp() - start);
            }
        }

        File.Delete(path);
        return sample;
    }

    /// <summary>Writes <paramref name="totalBytes"/> in 1 MiB writes to a new file, then one fdatasync: (seconds, MiB/s).</summary>
    public static (double Seconds, double MibPerSecond) SequentialBandwidth(string path, long totalBytes)
    {
        const int chunk = 1024 * 1024;
        var buffer = new byte[chunk];
        Random.Shared.NextBytes(buffer);
        var watch = Stopwatch.StartNew();
        using (var handle = File.OpenHandle(path, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None))
        {
            for (long offset = 0; offset < totalBytes; offset += chunk)
            {
                RandomAccess.Write(handle, buffer, offset);
            }

            Sync(handle, path, SyncCall.Fdatasync);
        }

        var seconds = watch.Elapsed.TotalSeconds;
        File.Delete(path);
        return (seconds, totalBytes / 1048576.0 / seconds);
    }

    private static void Allocate(SafeFileHandle handle, string path, long length)
    {
        if (OperatingSystem.IsLinux())
        {
            Libc.ThrowIfFailed(Libc.fallocate(handle, 0, 0, length), "fallocate", path);
        }
        else
        {
            RandomAccess.SetLength(handle, length);
        }
    }

    private static void Sync(SafeFileHandle handle, string path, SyncCall call)
    {
        if (!OperatingSystem.IsLinux())
        {
            RandomAccess.FlushToDisk(handle);
        }
        else if (call == SyncCall.Fdatasync)
        {
            Libc.ThrowIfFailed(Libc.fdatasync(handle), "fdatasync", path);
        }
        else
        {
            RandomAccess.FlushToDisk(handle); // fsync(2) on Unix
        }
    }
}
