using System.Diagnostics;
using Voron.LoadTests.Measurement;
using Voron.Platform.Posix;

namespace Voron.LoadTests.Tests;

/// <summary>The shared measurement pieces of Voron.LoadTests (Measurement/): parsers, counters, the load harnesses' bookkeeping. No speed is asserted.</summary>
public sealed class MeasurementTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Process_io_is_parsed_and_subtracted()
    {
        const string before = "rchar: 10\nwchar: 1000\nsyscr: 1\nsyscw: 5\nread_bytes: 0\nwrite_bytes: 8192\ncancelled_write_bytes: 4096\n";
        const string after = "rchar: 10\nwchar: 5000\nsyscr: 1\nsyscw: 9\nread_bytes: 0\nwrite_bytes: 20480\ncancelled_write_bytes: 4096\n";

        var delta = ProcessIo.Parse(after) - ProcessIo.Parse(before);

        Assert.True(delta.Available);
        Assert.Equal(4000, delta.HandedToWrite);
        Assert.Equal(12288, delta.WrittenToStorage);
        Assert.Equal(4, delta.WriteCalls);
        Assert.False(ProcessIo.Parse("nothing here").Available);
    }

    [Fact]
    public void A_device_stat_gives_the_bytes_written_from_its_sectors() =>
        Assert.Equal(2000L * 512, DeviceIo.ParseBytesWritten("   100 0 800 50   25 3 2000 70 0 90 120 0 0 0 0"));

    [Fact]
    public void The_mount_under_a_path_is_the_longest_mount_point_that_contains_it()
    {
        const string mountinfo =
            "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n" +
            "30 22 0:25 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw,size=1024k\n" +
            "31 22 259:1 / /mnt/fast\\040disk rw,noatime - xfs /dev/nvme0n1p1 rw,attr2,inode64\n";

        Assert.Equal(("ext4", "/dev/vda", "rw,relatime"), Describe(MachineDescription.FindMount(mountinfo, "/work/data")));
        Assert.Equal(("tmpfs", "tmpfs", "rw,nosuid,nodev"), Describe(MachineDescription.FindMount(mountinfo, "/tmp/x/y")));
        Assert.Equal(("xfs", "/dev/nvme0n1p1", "rw,noatime"), Describe(MachineDescription.FindMount(mountinfo, "/mnt/fast disk/store")));
        Assert.Equal(("ext4", "/dev/vda", "rw,relatime"), Describe(MachineDescription.FindMount(mountinfo, "/tmpfoo")));

        static (string, string, string) Describe(MachineDescription.Mount? mount) => (mount!.Type, mount.Source, mount.Options);
    }

    [Fact]
    public void The_cpu_model_and_memory_are_read_from_proc_texts()
    {
        Assert.Equal("AMD EPYC 7763 64-Core Processor", MachineDescription.CpuModelOf("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core Processor\n"));
        Assert.Equal(23.5, MachineDescription.MemoryGiBOf("MemTotal:       24641536 kB\nMemFree: 1 kB\n"));
    }

    [Fact]
    public void A_run_summary_gives_the_median_and_the_extremes()
    {
        var odd = new RunSummary();
        foreach (var value in new[] { 5.0, 1, 9, 3, 7 })
        {
            odd.Add(value);
        }

        var even = new RunSummary();
        foreach (var value in new[] { 4.0, 1, 3, 2 })
        {
            even.Add(value);
        }

        Assert.Equal((5, 1, 9), (odd.Median, odd.Min, odd.Max));
        Assert.Equal(2.5, even.Median);
    }

    [Fact]
    public void Rotation_puts_each_item_first_once_over_as_many_runs()
    {
        string[] engines = ["a", "b", "c"];

        Assert.Equal(["a", "b", "c"], Rotation.For(engines, 0));
        Assert.Equal(["b", "c", "a"], Rotation.For(engines, 1));
        Assert.Equal(["c", "a", "b"], Rotation.For(engines, 2));
        Assert.Equal(["a", "b", "c"], Rotation.For(engines, 3));
    }

    [Fact]
    public async Task The_group_commit_queue_commits_in_arrival_order_in_batches_up_to_its_maximum()
    {
        var batches = new List<int[]>();
        using var gate = new ManualResetEventSlim();
        using (var queue = new GroupCommitQueue<int>(batch =>
               {
                   gate.Wait();
                   lock (batches)
                   {
                       batches.Add([.. batch]);
                   }
               }, maxBatch: 4, "test"))
        {
            var first = queue.SubmitAsync(0);
            await Task.Delay(20); // the committer most likely holds item 0 at the gate now; the rest queue behind it (either way the order holds)
            var rest = Enumerable.Range(1, 9).Select(queue.SubmitAsync).ToArray();
            gate.Set();
            await Task.WhenAll([first, .. rest]);
            Assert.Equal(10, queue.Operations);
        }

        Assert.Equal(Enumerable.Range(0, 10), batches.SelectMany(b => b));
        Assert.All(batches, b => Assert.InRange(b.Length, 1, 4));
    }

    [Fact]
    public async Task A_failed_commit_fails_every_caller_of_its_batch_and_the_queue_goes_on()
    {
        using var queue = new GroupCommitQueue<int>(batch =>
        {
            if (batch.Contains(13))
            {
                throw new InvalidOperationException("unlucky");
            }
        }, maxBatch: 1, "test");

        await Assert.ThrowsAsync<InvalidOperationException>(() => queue.SubmitAsync(13));
        await queue.SubmitAsync(14);
        Assert.Equal(1, queue.Batches);
    }

    [Fact]
    public void A_delayed_file_system_waits_after_every_flush_and_passes_everything_else_through()
    {
        var disk = new SimulatedDisk(TimeSpan.FromMilliseconds(5));
        var files = new DelayedFlushFileSystem(PosixFileSystem.Instance, disk);
        var path = _directory.Combine("file");

        using (var file = files.Open(path, Voron.Platform.FileOpenMode.CreateNew))
        {
            file.Write(0, "hello"u8);
            var watch = Stopwatch.StartNew();
            file.FlushData();
            file.FlushData();
            Assert.True(watch.Elapsed >= TimeSpan.FromMilliseconds(10), $"two delayed flushes took {watch.Elapsed.TotalMilliseconds} ms");
        }

        files.SyncDirectory(_directory.Path);
        Assert.Equal(3, files.DelayedFlushes);
        Assert.Equal("hello"u8.ToArray(), File.ReadAllBytes(path));
    }

    [Fact]
    public void The_real_disk_is_not_wrapped_and_a_simulated_one_says_so_in_its_report()
    {
        Assert.Same(PosixFileSystem.Instance, SimulatedDisk.None.Wrap(PosixFileSystem.Instance));
        var report = new Voron.LoadTests.Reporting.Report("x", "x");
        new SimulatedDisk(TimeSpan.FromMilliseconds(8)).AddTo(report);

        var json = report.ToJson();
        Assert.Contains("\"flushDelayMs\": 8", json, StringComparison.Ordinal);
        Assert.Contains("SIMULATED", json, StringComparison.Ordinal);
    }

    [Fact]
    public void A_durable_write_probe_measures_every_space_with_both_syncs()
    {
        foreach (var space in Enum.GetValues<SyncSpace>())
        {
            foreach (var call in Enum.GetValues<SyncCall>())
            {
                var sample = DurableWriteProbe.Measure(_directory.Combine($"{space}-{call}"), 4096, 5, space, call);
                Assert.Equal(5, sample.Count);
                Assert.False(File.Exists(_directory.Combine($"{space}-{call}")));
            }
        }
    }

    public void Dispose() => _directory.Dispose();
}
