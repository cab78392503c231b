namespace Voron.Tests.Documents.Crash;

/// <summary>
/// Crash safety of the document store through the crash harness (Voron.Tests/Core/Crash): every I/O
/// call of a document workload is a crash point, crashed with every damage model. After recovery:
/// every acknowledged SaveChangesAsync is there with its index entries; no part of an
/// unacknowledged session shows (a whole in-flight session may); the integrity check finds the
/// indexes and documents in exact agreement; an interrupted index build finishes; a new save works.
/// </summary>
public sealed class DocumentCrashTests(ITestOutputHelper output)
{
    private const string Directory = CrashRun.Directory;

    [Fact]
    public void Every_crash_point_of_sequential_sessions_keeps_acknowledged_saves_and_their_index_entries()
    {
        var seed = TestSeed.Next(output, nameof(Every_crash_point_of_sequential_sessions_keeps_acknowledged_saves_and_their_index_entries));
        Check(seed, "sequential sessions", DocumentCrashScenarios.SessionsAsync, o => o.JournalFileSize = 16 * 1024, extraPoints: 1);
    }

    [Fact]
    public void Every_crash_point_of_concurrent_sessions_keeps_acknowledged_saves_and_nothing_partial()
    {
        var seed = TestSeed.Next(output, nameof(Every_crash_point_of_concurrent_sessions_keeps_acknowledged_saves_and_nothing_partial));
        Check(seed, "concurrent sessions", DocumentCrashScenarios.ConcurrentSessionsAsync, o =>
        {
            o.JournalFileSize = 16 * 1024;
            o.MaxBatchOperations = 3;
        }, extraPoints: 5);
    }

    private void Check(int seed, string name, Func<DocumentCrashRun, Task> scenario, Action<StorageEnvironmentOptions> tune, int extraPoints)
    {
        var calls = CountCalls(seed, scenario, tune);
        var rounds = CrashBudget.Soak is { } soak ? (int)Math.Clamp(soak * 0.02 / (calls * PowerLossPolicy.AllModels.Count), 3, 10_000) : 3;
        var (states, failures) = StateRunner.Run(Enumerable.Range(0, calls + extraPoints).ToList(), (point, found) =>
        {
            var policies = Enumerable.Range(0, rounds * PowerLossPolicy.AllModels.Count)
                .Select(i => new PowerLossPolicy(PowerLossPolicy.AllModels[i % PowerLossPolicy.AllModels.Count], CrashHarness.StateSeed(seed, name, point, i)))
                .ToList();
            found.AddRange(CheckPoint(seed, scenario, tune, point, policies, name));
            return policies.Count;
        });
        CrashBudget.Report(output, $"documents '{name}': {calls} calls, {rounds * PowerLossPolicy.AllModels.Count} power losses each", states, failures);
    }

    private static int CountCalls(int seed, Func<DocumentCrashRun, Task> scenario, Action<StorageEnvironmentOptions> tune)
    {
        using var machine = new CrashFileSystem(seed, Directory);
        var model = new DocumentCrashModel();
        var run = new DocumentCrashRun(machine, model, tune);
        scenario(run).GetAwaiter().GetResult();
        run.Finish();
        using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, seed));
        var problem = Verify(crashed, model, tune);
        if (problem != null)
        {
            throw new CrashCheckException($"the scenario without a crash: {problem}");
        }

        return machine.CallCount;
    }

    private static List<string> CheckPoint(int seed, Func<DocumentCrashRun, Task> scenario, Action<StorageEnvironmentOptions> tune, int point, List<PowerLossPolicy> policies, string name)
    {
        var failures = new List<string>();
        using var machine = new CrashFileSystem(seed, Directory) { CrashAtCall = point };
        var model = new DocumentCrashModel();
        var run = new DocumentCrashRun(machine, model, tune);
        StateRunner.Stage($"running documents '{name}' to crash point {point}");
        try
        {
            scenario(run).GetAwaiter().GetResult();
        }
        catch (Exception e) when (machine.HasCrashed && e is not CrashCheckException)
        {
            _ = e; // the power loss ended the scenario, as intended
        }
        catch (Exception e)
        {
            run.Finish();
            failures.Add($"{name} crash point {point} (seed {seed}): the scenario failed before any crash: {e.GetType().Name}: {e.Message}");
            return failures;
        }

        run.Finish();
        foreach (var policy in policies)
        {
            StateRunner.Stage($"verifying documents '{name}' crash point {point} after {policy}");
            using var crashed = machine.AfterPowerLoss(policy);
            if (Verify(crashed, model, tune) is { } problem)
            {
                failures.Add($"{name} crash point {point} ({machine.CrashCall?.ToString() ?? "after the last call"}), {policy}, seed {seed}: {problem}");
            }
        }

        return failures;
    }

    /// <summary>Recovers the store on <paramref name="disk"/> and checks it against the model; returns what is wrong, or null.</summary>
    private static string? Verify(CrashFileSystem disk, DocumentCrashModel model, Action<StorageEnvironmentOptions> tune)
    {
        StorageEnvironment environment;
        try
        {
            StateRunner.Step("recovery");
            environment = StorageEnvironment.Open(CrashRun.Options(disk, tune));
        }
        catch (Exception e)
        {
            return $"recovery failed: {e.GetType().Name}: {e.Message}";
        }

        try
        {
            using var store = DocumentStore.Open(environment, DocumentCrashRun.DocumentOptions);
            StateRunner.Step("documents against the model");
            using (var session = store.OpenSession())
            {
                foreach (var caller in model.Callers)
                {
                    var candidates = model.Candidates(caller);
                    var actual = candidates[0].State.Keys.ToDictionary(id => id, id => Raw(session, id), StringComparer.Ordinal);
                    if (!candidates.Any(c => c.State.All(e => e.Value == actual[e.Key])))
                    {
                        var differences = string.Join("; ", candidates[0].State.Where(e => e.Value != actual[e.Key]).Select(e => $"'{e.Key}' is {Describe(actual[e.Key])}, after {candidates[0].Sessions} sessions {Describe(e.Value)}"));
                        return $"caller {caller}'s documents match none of the states after {string.Join(" or ", candidates.Select(c => c.Sessions))} sessions: {differences}";
                    }
                }
            }

            StateRunner.Step("the document integrity check");
            store.CheckIntegrity();
            StateRunner.Step("finishing index builds");
            foreach (var index in DocumentCrashScenarios.Indexes.Where(i => store.GetIndexes().Any(s => s.Definition.Name == i.Name)))
            {
                store.EnsureIndexAsync(index).GetAwaiter().GetResult();
            }

            store.CheckIntegrity();
            environment.CheckIntegrity();
            StateRunner.Step("a save after recovery");
            using (var session = store.OpenSession())
            {
                session.Store(new Note { Text = "after" }, TestJson.Default.Note, "notes/after-recovery");
                session.SaveChangesAsync().GetAwaiter().GetResult();
            }

            return null;
        }
        catch (Exception e)
        {
            return $"{e.GetType().Name}: {e.Message}";
        }
        finally
        {
            environment.Dispose();
        }
    }

    private static string? Raw(IAsyncDocumentSession session, string id)
    {
        using var raw = session.LoadRawAsync(id).GetAwaiter().GetResult();
        return raw == null ? null : Encoding.UTF8.GetString(raw.Json.Span);
    }

    private static string Describe(string? json) => json == null ? "absent" : json.Length > 60 ? json[..60] + "..." : json;
}
