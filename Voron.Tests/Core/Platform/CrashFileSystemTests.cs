namespace Voron.Tests.Core.Platform;

/// <summary>
/// The crash simulator keeps the durability contract of IStorageFile.cs (F1..F3) and
/// IFileSystem.SyncDirectory — no more, no less — so that what the crash tests find is the
/// engine's doing.
/// </summary>
public sealed class CrashFileSystemTests
{
    private const string File = "/d/file";

    private static byte[] Filled(byte value, int length) => Enumerable.Repeat(value, length).ToArray();

    private static byte[] ReadAll(CrashFileSystem fs, string path)
    {
        using var file = fs.Open(path, FileOpenMode.OpenExisting);
        var bytes = new byte[file.Length];
        file.Read(0, bytes);
        return bytes;
    }

    /// <summary>A machine with <see cref="File"/> holding 4 sectors of 0x11, all durable.</summary>
    private static CrashFileSystem WithDurableFile()
    {
        var fs = new CrashFileSystem(1, "/d");
        using (var file = fs.Open(File, FileOpenMode.CreateNew))
        {
            file.Write(0, Filled(0x11, 2048));
            file.FlushData();
        }

        fs.SyncDirectory("/d");
        return fs;
    }

    [Fact]
    public void Unsynced_write_is_kept_or_lost_by_the_power_loss_F1()
    {
        using var fs = WithDurableFile();
        using (var file = fs.Open(File, FileOpenMode.OpenExisting))
        {
            file.Write(512, Filled(0x22, 512));
        }

        using var kept = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.KeepAll, 0));
        using var lost = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 0));

        Assert.Equal(0x22, ReadAll(kept, File)[512]);
        Assert.Equal(0x11, ReadAll(lost, File)[512]);
        Assert.Equal(0x22, ReadAll(fs, File)[512]); // the machine itself is unchanged
    }

    [Fact]
    public void Flushed_write_survives_every_damage_model()
    {
        using var fs = WithDurableFile();
        using (var file = fs.Open(File, FileOpenMode.OpenExisting))
        {
            file.Write(0, Filled(0x33, 2048));
            file.FlushData();
            file.Write(0, Filled(0x44, 100)); // unsynced, over part of the first sector
        }

        foreach (var model in PowerLossPolicy.AllModels)
        {
            using var crashed = fs.AfterPowerLoss(new PowerLossPolicy(model, 5));
            var bytes = ReadAll(crashed, File);
            Assert.True(bytes.AsSpan(512).IndexOfAnyExcept((byte)0x33) < 0, $"{model}: a synced sector changed");
        }
    }

    [Fact]
    public void Torn_write_leaves_each_sector_old_or_new_and_torn_bytes_may_split_one()
    {
        var sawMix = false;
        var sawSplit = false;
        for (var seed = 0; seed < 200; seed++)
        {
            using var fs = WithDurableFile();
            using (var file = fs.Open(File, FileOpenMode.OpenExisting))
            {
                file.Write(0, Filled(0x55, 2048));
            }

            using var sectors = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.TornSectors, seed));
            var bytes = ReadAll(sectors, File);
            for (var s = 0; s < 4; s++)
            {
                var sector = bytes.AsSpan(s * 512, 512);
                Assert.True(sector.IndexOfAnyExcept((byte)0x11) < 0 || sector.IndexOfAnyExcept((byte)0x55) < 0, "a sector mixes old and new bytes");
            }

            sawMix |= bytes.Contains((byte)0x11) && bytes.Contains((byte)0x55);

            using var torn = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.TornBytes, seed));
            var tornBytes = ReadAll(torn, File);
            for (var s = 0; s < 4; s++)
            {
                var sector = tornBytes.AsSpan(s * 512, 512);
                sawSplit |= sector.Contains((byte)0x11) && sector.Contains((byte)0x55);
            }
        }

        Assert.True(sawMix, "some torn writes keep some sectors and lose others");
        Assert.True(sawSplit, "TornBytes splits a sector at a byte boundary");
    }

    [Fact]
    public void Size_set_by_preallocate_or_set_length_is_durable_only_after_flush_F2()
    {
        using var fs = WithDurableFile();
        using (var file = fs.Open(File, FileOpenMode.OpenExisting))
        {
            file.Preallocate(8192);
            using var before = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 0));
            Assert.Equal(2048, ReadAll(before, File).Length);
            file.FlushData();
            file.SetLength(1024);
        }

        using var dropped = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 0));
        using var kept = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.KeepAll, 0));
        Assert.Equal(8192, ReadAll(dropped, File).Length);
        Assert.Equal(1024, ReadAll(kept, File).Length);
    }

    [Fact]
    public void New_file_name_is_durable_only_after_SyncDirectory_F2()
    {
        using var fs = new CrashFileSystem(1, "/d");
        using (var file = fs.Open("/d/new", FileOpenMode.CreateNew))
        {
            file.Write(0, Filled(1, 10));
            file.FlushData(); // the bytes are durable, the name is not
        }

        using (var lost = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 0)))
        {
            Assert.False(lost.FileExists("/d/new"));
        }

        fs.SyncDirectory("/d");
        using var kept = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 0));
        Assert.Equal(Filled(1, 10), ReadAll(kept, "/d/new"));
    }

    [Fact]
    public void Unsynced_rename_and_delete_may_be_undone_by_a_power_loss()
    {
        using var fs = WithDurableFile();
        fs.MoveFile(File, "/d/renamed");
        using (var undone = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 0)))
        {
            Assert.True(undone.FileExists(File));
            Assert.False(undone.FileExists("/d/renamed"));
        }

        fs.SyncDirectory("/d");
        fs.DeleteFile("/d/renamed");
        using var deleteUndone = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 0));
        Assert.Equal(0x11, ReadAll(deleteUndone, "/d/renamed")[0]);
    }

    [Fact]
    public void Files_in_a_directory_whose_creation_was_not_synced_vanish()
    {
        using var fs = new CrashFileSystem(1, "/d");
        fs.CreateDirectory("/d/sub");
        using (var file = fs.Open("/d/sub/f", FileOpenMode.CreateNew))
        {
            file.FlushData();
        }

        fs.SyncDirectory("/d/sub");
        using (var lost = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 0)))
        {
            Assert.False(lost.FileExists("/d/sub/f"));
        }

        fs.SyncDirectory("/d");
        using var kept = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 0));
        Assert.True(kept.FileExists("/d/sub/f"));
    }

    [Fact]
    public void Reads_and_mappings_see_the_latest_write_durable_or_not_F3()
    {
        using var fs = WithDurableFile();
        using var file = fs.Open(File, FileOpenMode.OpenExisting);
        using var map = file.MapReadOnly(1 << 20);
        file.Write(10, [0x99]);

        var read = new byte[1];
        file.Read(10, read);
        Assert.Equal(0x99, read[0]);
        Assert.Equal(0x99, map.GetSpan(10, 1)[0]);
    }

    [Fact]
    public void Crash_point_call_and_every_later_mutating_call_throw()
    {
        using var fs = WithDurableFile();
        fs.CrashAtCall = fs.CallCount + 1;
        using var file = fs.Open(File, FileOpenMode.OpenExisting);
        file.Write(0, [1]); // call k - 1: fine

        var crash = Assert.Throws<SimulatedPowerLossException>(() => file.FlushData());
        Assert.Equal(IoCallKind.FlushData, crash.Call.Kind);
        Assert.Throws<SimulatedPowerLossException>(() => file.Write(0, [2]));
        Assert.Throws<SimulatedPowerLossException>(() => fs.DeleteFile(File));
        Assert.True(fs.HasCrashed);
        Assert.Equal(1, ReadAll(fs, File)[0]); // reads still work; the flush that never returned synced nothing for sure
    }

    [Fact]
    public void Failed_fsync_may_lose_the_data_even_after_a_later_fsync_succeeds()
    {
        var lostSomething = false;
        for (var seed = 0; seed < 20 && !lostSomething; seed++)
        {
            using var fs = new CrashFileSystem(seed, "/d");
            using (var file = fs.Open(File, FileOpenMode.CreateNew))
            {
                file.FlushData();
                fs.SyncDirectory("/d");
                file.Write(0, Filled(0x77, 4096));
                fs.Faults = call => call.Kind == IoCallKind.FlushData ? IoFault.FsyncFailure : IoFault.None;
                Assert.Throws<IOException>(() => file.FlushData());
                fs.Faults = null;
                file.FlushData(); // "succeeds": the kernel has nothing dirty left to write
                Assert.Equal(0x77, ReadAll(fs, File)[0]); // the page cache still shows the data
            }

            using var crashed = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.KeepAll, 0));
            lostSomething = ReadAll(crashed, File).AsSpan(0, 4096).IndexOfAnyExcept((byte)0x77) >= 0;
        }

        Assert.True(lostSomething, "after a failed fsync some unsynced bytes are lost for good");
    }

    [Fact]
    public void The_same_policy_seed_crashes_a_machine_the_same_way()
    {
        using var fs = WithDurableFile();
        using (var file = fs.Open(File, FileOpenMode.OpenExisting))
        {
            file.Write(0, Filled(0x66, 2048));
        }

        fs.MoveFile(File, "/d/moved");
        foreach (var model in PowerLossPolicy.AllModels)
        {
            using var a = fs.AfterPowerLoss(new PowerLossPolicy(model, 42));
            using var b = fs.AfterPowerLoss(new PowerLossPolicy(model, 42));
            var path = a.FileExists(File) ? File : "/d/moved";
            Assert.True(b.FileExists(path), $"{model}: the same names survive");
            Assert.Equal(ReadAll(a, path), ReadAll(b, path));
        }
    }

    [Fact]
    public void A_write_that_survived_past_the_durable_end_brings_the_preallocation_before_it()
    {
        for (var seed = 0; seed < 50; seed++)
        {
            using var fs = WithDurableFile(); // 2048 bytes
            using (var file = fs.Open(File, FileOpenMode.OpenExisting))
            {
                file.Preallocate(8192);
                file.Write(2048, Filled(0x77, 1000)); // inside the preallocation, past the durable end
            }

            using var crashed = fs.AfterPowerLoss(new PowerLossPolicy(DamageModel.KeepOrDrop, seed));
            var length = ReadAll(crashed, File).Length;
            Assert.True(length is 2048 or 8192, $"seed {seed}: length {length}: the write alone cannot set the size");
        }
    }
}
