namespace Voron.Tests.Core.Inspect;

/// <summary>The lock file's holder record (Platform/LockFileRecord.cs, LF1..LF3) and the StoreLockedException that names the holder.</summary>
public sealed class LockFileRecordTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void A_record_reads_back_as_written()
    {
        var at = new DateTimeOffset(2026, 11, 27, 6, 20, 4, 123, TimeSpan.Zero).AddTicks(4567);
        var bytes = LockFileRecord.Encode(1234, "my app", DurabilityMode.Lazy, at);

        var info = LockFileRecord.Parse(bytes, isHeld: true);

        Assert.Equal(new StoreLockInfo(true, 1234, "my app", DurabilityMode.Lazy, at), info);
        Assert.StartsWith("voron-lock 1\npid=1234\n", Encoding.UTF8.GetString(bytes), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("")]                                                    // LF1: empty (a crash right after the truncation)
    [InlineData("voron-lock 1")]                                        // a header and nothing else
    [InlineData("voron-lock x\npid=12\n")]                              // LF1: not a version
    [InlineData("VORON-LOCK 1\npid=12\n")]                              // LF1: not the header
    [InlineData("pid=12\nprocess=dotnet\n")]                            // LF1: no header
    [InlineData("voron-lock 1\npid=-5\nprocess=\ndurability=Fast\nopened=yesterday\n")] // LF2: every field fails its rule
    [InlineData("voron-lock 1\npid=12\npid=13\n")]                      // LF2: a field twice tells nothing
    [InlineData("voron-lock 1\npid=99999999999999\n")]                  // LF2: not an int
    [InlineData("voron-lock 1\ndurability=1\n")]                        // LF2: a number is not a mode's name
    public void A_malformed_record_tells_nothing_and_never_throws(string text)
    {
        var info = LockFileRecord.Parse(Encoding.UTF8.GetBytes(text), isHeld: false);

        Assert.Equal(new StoreLockInfo(false, null, null, null, null), info);
    }

    [Fact]
    public void A_damaged_field_is_not_told_but_the_others_are_and_unknown_names_are_skipped()
    {
        var text = "voron-lock 2\r\npid=77\r\nprocess=x=y\r\ndurability=Bogus\r\nopened=2026-11-27T06:20:04.0000000Z\r\nhost=somewhere\r\n";

        var info = LockFileRecord.Parse(Encoding.UTF8.GetBytes(text), isHeld: false);

        Assert.Equal(77, info.ProcessId);
        Assert.Equal("x=y", info.ProcessName); // the value is everything after the first '='
        Assert.Null(info.Durability);
        Assert.Equal(new DateTimeOffset(2026, 11, 27, 6, 20, 4, TimeSpan.Zero), info.OpenedAt);
    }

    [Fact]
    public void Garbage_and_records_over_the_size_limit_tell_nothing()
    {
        var random = new Random(5);
        for (var i = 0; i < 200; i++)
        {
            var bytes = new byte[random.Next(0, 300)];
            random.NextBytes(bytes);
            var info = LockFileRecord.Parse(bytes, isHeld: false); // LF3: never throws
            Assert.Null(info.ProcessId);
        }

        var tooLong = LockFileRecord.Encode(1, new string('a', 200), DurabilityMode.Durable, DateTimeOffset.UtcNow).Concat(new byte[LockFileRecord.MaxBytes]).ToArray();
        Assert.Null(LockFileRecord.Parse(tooLong, isHeld: false).ProcessId);
    }

    [Fact]
    public void A_second_open_in_this_process_names_this_process_in_StoreLockedException()
    {
        var store = _directory.Combine("store");
        using var env = StorageEnvironment.Open(InspectStores.Options(store));

        var error = Assert.Throws<StoreLockedException>(() => StorageEnvironment.Open(InspectStores.Options(store)).Dispose());

        Assert.True(error.Holder!.IsHeld);
        if (!OperatingSystem.IsWindows()) // FileShare.None lets nobody read the record there: the holder is unknown
        {
            Assert.Equal(Environment.ProcessId, error.Holder.ProcessId);
            Assert.Equal(DurabilityMode.Durable, error.Holder.Durability);
            Assert.Contains($"already open by another StorageEnvironment in this process ({Environment.ProcessId})", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_malformed_lock_file_does_not_stop_an_open_and_is_rewritten()
    {
        var store = _directory.Combine("store");
        StorageEnvironment.Open(InspectStores.Options(store)).Dispose();
        File.WriteAllBytes(Path.Combine(store, "voron.lock"), [0xFF, 0x00, 0x13, 0x37]);
        Assert.Null(StorageEnvironment.Inspect(store).Lock.ProcessId);

        StorageEnvironment.Open(InspectStores.Options(store, durability: DurabilityMode.Lazy)).Dispose();

        var info = StorageEnvironment.Inspect(store);
        Assert.Equal(Environment.ProcessId, info.Lock.ProcessId);
        Assert.Equal(DurabilityMode.Lazy, info.Lock.Durability);
    }

    [Fact]
    public void The_probe_tells_a_held_lock_from_a_free_one_and_leaves_it_free()
    {
        var path = _directory.Combine("voron.lock");
        Assert.Equal(new LockFileProbe.Result(new StoreLockInfo(false, null, null, null, null), null, null), LockFileProbe.Probe(path)); // no file

        using (var held = RealFiles.LockExclusive(path))
        {
            LockFileRecord.TryWrite(held, DurabilityMode.Durable);
            var probe = LockFileProbe.Probe(path);
            Assert.True(probe.Lock.IsHeld);
            Assert.Null(probe.Problem);
        }

        var free = LockFileProbe.Probe(path);
        Assert.False(free.Lock.IsHeld);
        Assert.Equal(Environment.ProcessId, free.Lock.ProcessId);
        using var again = RealFiles.LockExclusive(path); // the probe left no lock behind
    }
}
