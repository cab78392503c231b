using System.Text;

namespace Voron.Testing.Crash;

/// <summary>Opens a store after a crash and checks it against the model (O1..O4 in StoreModel.cs).</summary>
internal static class CrashVerifier
{
    private const string AfterTree = "__after";
    private static readonly string ScratchFile = new Voron.Header.StoreLayout(CrashRun.Directory).ScratchFile;

    /// <summary>
    /// Recovers the store on <paramref name="fileSystem"/> and checks it; returns the recovered
    /// transaction id. With <paramref name="reopen"/> the store is also closed cleanly (a final
    /// flush) and opened once more, and must show the same state again.
    /// </summary>
    public static long Verify(CrashFileSystem fileSystem, StoreModel model, Action<StorageEnvironmentOptions>? tune, bool reopen)
    {
        long recovered;
        StateRunner.Step("recovery");
        var environment = Open(fileSystem, tune, "recovery");
        try
        {
            if (fileSystem.FileExists(ScratchFile))
            {
                throw new CrashCheckException("SC3: the scratch file a crash left behind is still there after recovery (open deletes it)");
            }

            recovered = environment.LastCommittedTransactionId;
            Fail(model.CheckRecoveredId(recovered));
            StateRunner.Step("reading the recovered store");
            CheckContents(environment, model.StatesAt(recovered), recovered, "after recovery");
            StateRunner.Step("the integrity check");
            Check(() => environment.CheckIntegrity(), "O4: CheckIntegrity after recovery");
            StateRunner.Step("a write after recovery");
            Check(() => WriteAfter(environment, recovered), "O4: a new write after recovery");
        }
        finally
        {
            StateRunner.Step("closing the recovered store");
            environment.Dispose();
        }

        if (reopen)
        {
            StateRunner.Step("the reopen after recovery");
            environment = Open(fileSystem, tune, "the reopen after recovery and one more write");
            try
            {
                CheckContents(environment, model.StatesAt(recovered), recovered, "after reopening");
                using var read = environment.BeginRead();
                if (read.OpenTree(AfterTree)?.Get(Encoding.UTF8.GetBytes($"after-{recovered}")) is null)
                {
                    throw new CrashCheckException("O4: the write made after recovery is missing after a clean close and reopen");
                }
            }
            finally
            {
                environment.Dispose();
            }
        }

        return recovered;
    }

    /// <summary>Checks the contents of an open store equal one of <paramref name="candidates"/>.</summary>
    public static void CheckContents(StorageEnvironment environment, IReadOnlyList<ModelState> candidates, long transactionId, string when)
    {
        string? difference = null;
        Check(() =>
        {
            using var read = environment.BeginRead();
            var differences = candidates.Select(c => c.FindDifference(read)).ToList();
            difference = differences.Contains(null) ? null : string.Join("; or ", differences);
        }, $"reading the store {when}");
        if (difference != null)
        {
            throw new CrashCheckException($"O3: {when}, the store at transaction {transactionId} differs from the model: {difference}");
        }
    }

    private static StorageEnvironment Open(CrashFileSystem fileSystem, Action<StorageEnvironmentOptions>? tune, string what)
    {
        try
        {
            return StorageEnvironment.Open(CrashRun.Options(fileSystem, tune));
        }
        catch (Exception e)
        {
            throw new CrashCheckException($"{what} failed: {e.GetType().Name}: {e.Message}", e);
        }
    }

    private static void WriteAfter(StorageEnvironment environment, long recovered)
    {
        var key = Encoding.UTF8.GetBytes($"after-{recovered}");
        using (var write = environment.BeginWrite())
        {
            write.CreateTree(AfterTree).Put(key, key);
            write.Commit();
        }

        using var read = environment.BeginRead();
        if (read.OpenTree(AfterTree)?.Get(key) is null)
        {
            throw new CrashCheckException("the committed write is not visible");
        }
    }

    private static void Check(Action action, string what)
    {
        try
        {
            action();
        }
        catch (CrashCheckException)
        {
            throw;
        }
        catch (Exception e)
        {
            throw new CrashCheckException($"{what} failed: {e.GetType().Name}: {e.Message}", e);
        }
    }

    private static void Fail(string? violation)
    {
        if (violation != null)
        {
            throw new CrashCheckException(violation);
        }
    }
}
