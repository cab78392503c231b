namespace Voron.Tests.Core.Inspect;

/// <summary>A store held open by another process: Inspect and a refused opener name that process (LF, SI1).</summary>
public sealed class InspectOtherProcessTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void Inspect_and_StoreLockedException_name_the_process_that_holds_the_store()
    {
        // The child (Voron.Testing.Processes crash-child) opens the store, prints READY and writes
        // for up to 10 seconds: Inspect reads it meanwhile, and an open here is refused.
        var store = _directory.Combine("store");
        using var child = Crash.ProcessKillTests.Start(store, seed: 1, run: 1, lazy: false, portable: false);
        try
        {
            string? line;
            while ((line = child.StandardOutput.ReadLine()) != null && !line.StartsWith("READY ", StringComparison.Ordinal))
            {
            }

            if (line == null)
            {
                Assert.Fail($"the child exited before opening the store: {child.StandardError.ReadToEnd()}"); // read only then: it blocks until the child exits
            }

            var info = StorageEnvironment.Inspect(store);
            var error = Assert.Throws<StoreLockedException>(() => StorageEnvironment.Open(InspectStores.Options(store)).Dispose());

            Assert.True(info.Lock.IsHeld);
            Assert.False(info.ClosedCleanly);
            Assert.True(error.Holder!.IsHeld);
            if (!OperatingSystem.IsWindows()) // there the holder's FileShare.None hides the record
            {
                Assert.Equal(child.Id, info.Lock.ProcessId);
                Assert.Equal(child.Id, error.Holder.ProcessId);
                Assert.Contains($"already open by process {child.Id} (dotnet)", error.Message, StringComparison.Ordinal);
            }
        }
        finally
        {
            child.Kill();
            child.WaitForExit();
        }

        var after = StorageEnvironment.Inspect(store); // killed: the record names it still, nobody holds the lock
        Assert.False(after.Lock.IsHeld);
        Assert.Equal(child.Id, after.Lock.ProcessId);
        using var env = StorageEnvironment.Open(InspectStores.Options(store));
        Assert.Equal(after.LastTransactionId, env.LastCommittedTransactionId); // what the look said an open would end with
    }
}
