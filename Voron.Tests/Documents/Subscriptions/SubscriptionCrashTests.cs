using Voron.Tests.Documents.Changes;
using Voron.Tests.Documents.Crash;

namespace Voron.Tests.Documents.Subscriptions;

/// <summary>
/// SU1 under the crash harness: a scenario writes users and runs a subscription worker that saves
/// a derived note per change through <see cref="SubscriptionBatch.OpenSession"/>. At every I/O
/// call, with every damage model, after recovery: the stored position is the last acknowledged one
/// (or the in-flight one); the notes are exactly the changes at or below it, each once; and the
/// resumed subscription hands out exactly the changes after it, none missed, none repeated.
/// </summary>
public sealed class SubscriptionCrashTests(ITestOutputHelper output)
{
    private const string Name = "subscription worker";
    private static readonly TestJson Json = TestJson.Default;

    private static void Tune(StorageEnvironmentOptions options) => options.JournalFileSize = 16 * 1024;

    [Fact]
    public void Every_crash_point_of_a_subscription_worker_keeps_its_position_and_derived_documents_in_agreement()
    {
        var seed = TestSeed.Next(output, nameof(Every_crash_point_of_a_subscription_worker_keeps_its_position_and_derived_documents_in_agreement));
        var calls = CountCalls(seed);
        var rounds = CrashBudget.Soak is { } soak ? (int)Math.Clamp(soak * 0.02 / (calls * PowerLossPolicy.AllModels.Count), 3, 10_000) : 3;
        var (states, failures) = StateRunner.Run(Enumerable.Range(0, calls + 1).ToList(), (point, found) =>
        {
            var policies = Enumerable.Range(0, rounds * PowerLossPolicy.AllModels.Count)
                .Select(i => new PowerLossPolicy(PowerLossPolicy.AllModels[i % PowerLossPolicy.AllModels.Count], CrashHarness.StateSeed(seed, Name, point, i)))
                .ToList();
            found.AddRange(CheckPoint(seed, point, policies));
            return policies.Count;
        });
        CrashBudget.Report(output, $"documents '{Name}': {calls} calls, {rounds * PowerLossPolicy.AllModels.Count} power losses each", states, failures);
    }

    /// <summary>Users saved in rounds; after each, one batch processed through its session; a flush and a process restart cut in.</summary>
    private static async Task ScenarioAsync(DocumentCrashRun run, SubscriptionCrashModel model)
    {
        run.Open();
        await run.Store!.Subscriptions.CreateAsync("derive", collection: "User");
        model.CreateAcknowledged();
        for (var round = 0; round < 4; round++)
        {
            await SubscriptionTestData.SaveUsersAsync(run.Store!, 2, $"r{round}-");
            if (round == 1)
            {
                await SubscriptionTestData.SaveNoteAsync(run.Store!, "noise");
            }

            await using (var worker = await run.Store!.Subscriptions.OpenAsync("derive", new SubscriptionWorkerOptions { MaxBatchSize = 3, WaitTimeout = TimeSpan.Zero }))
            {
                var batch = await worker.NextBatchGuardedAsync();
                await using var session = batch.OpenSession();
                foreach (var change in batch.Changes)
                {
                    SubscriptionTestData.Derive(session, change);
                }

                model.Attempt(batch.EndPosition);
                await session.SaveChangesAsync();
                model.Acknowledge(batch.EndPosition);
            }

            if (round == 1)
            {
                run.Flush();
            }
            else if (round == 2)
            {
                run.Restart();
            }
        }
    }

    private static int CountCalls(int seed)
    {
        using var machine = new CrashFileSystem(seed, CrashRun.Directory);
        var model = new SubscriptionCrashModel();
        var run = new DocumentCrashRun(machine, new DocumentCrashModel(), Tune);
        ScenarioAsync(run, model).GetAwaiter().GetResult();
        run.Finish();
        using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, seed));
        if (Verify(crashed, model) is { } problem)
        {
            throw new CrashCheckException($"the scenario without a crash: {problem}");
        }

        return machine.CallCount;
    }

    private static List<string> CheckPoint(int seed, int point, List<PowerLossPolicy> policies)
    {
        var failures = new List<string>();
        using var machine = new CrashFileSystem(seed, CrashRun.Directory) { CrashAtCall = point };
        var model = new SubscriptionCrashModel();
        var run = new DocumentCrashRun(machine, new DocumentCrashModel(), Tune);
        StateRunner.Stage($"running documents '{Name}' to crash point {point}");
        try
        {
            ScenarioAsync(run, model).GetAwaiter().GetResult();
        }
        catch (Exception e) when (machine.HasCrashed && e is not CrashCheckException)
        {
            _ = e; // the power loss ended the scenario, as intended
        }
        catch (Exception e)
        {
            run.Finish();
            failures.Add($"{Name} crash point {point} (seed {seed}): the scenario failed before any crash: {e.GetType().Name}: {e.Message}");
            return failures;
        }

        run.Finish();
        foreach (var policy in policies)
        {
            StateRunner.Stage($"verifying documents '{Name}' crash point {point} after {policy}");
            using var crashed = machine.AfterPowerLoss(policy);
            if (Verify(crashed, model) is { } problem)
            {
                failures.Add($"{Name} crash point {point} ({machine.CrashCall?.ToString() ?? "after the last call"}), {policy}, seed {seed}: {problem}");
            }
        }

        return failures;
    }

    /// <summary>Recovers the store on <paramref name="disk"/> and checks the subscription against the model and the documents; returns what is wrong, or null.</summary>
    private static string? Verify(CrashFileSystem disk, SubscriptionCrashModel model)
    {
        StorageEnvironment environment;
        try
        {
            StateRunner.Step("recovery");
            environment = StorageEnvironment.Open(CrashRun.Options(disk, Tune));
        }
        catch (Exception e)
        {
            return $"recovery failed: {e.GetType().Name}: {e.Message}";
        }

        try
        {
            using var store = DocumentStore.Open(environment, DocumentCrashRun.DocumentOptions);
            return VerifyAsync(store, model).GetAwaiter().GetResult();
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

    private static async Task<string?> VerifyAsync(DocumentStore store, SubscriptionCrashModel model)
    {
        StateRunner.Step("the subscription's position");
        if (await store.Subscriptions.GetAsync("derive") is not { } state)
        {
            return model.Created ? "the subscription's acknowledged creation is lost" : null;
        }

        var allowed = model.Allowed;
        if (!allowed.Contains(state.Position))
        {
            return $"the position is {state.Position}; the worker acknowledged up to {allowed[0]}{(allowed.Count > 1 ? $" and had {allowed[1]} in flight" : "")}";
        }

        StateRunner.Step("derived documents against the position");
        List<long> sources;
        await using (var session = store.OpenSession())
        {
            var users = await session.Query(Json.User).ToListAsync();
            sources = [.. users.Select(u => session.GetMetadata(u)!.Version).Order()];
        }

        if (Problem(await SubscriptionTestData.NoteTextsAsync(store), sources.Where(v => v <= state.Position)) is { } derived)
        {
            return $"at position {state.Position}: {derived}";
        }

        StateRunner.Step("the resumed subscription");
        var after = sources.Where(v => v > state.Position).ToList();
        if (after.Count > 0)
        {
            await using var worker = await store.Subscriptions.OpenAsync("derive", new SubscriptionWorkerOptions { MaxBatchSize = 10_000, WaitTimeout = TimeSpan.Zero });
            var batch = await worker.NextBatchGuardedAsync();
            var handed = batch.Changes.Select(c => c.Version).ToList();
            if (!handed.SequenceEqual(after))
            {
                return $"resumed at {state.Position}, the subscription handed out [{string.Join(", ", handed)}], not the changes after it [{string.Join(", ", after)}]";
            }

            await using var session = batch.OpenSession();
            foreach (var change in batch.Changes)
            {
                SubscriptionTestData.Derive(session, change);
            }

            await session.SaveChangesAsync();
            if (Problem(await SubscriptionTestData.NoteTextsAsync(store), sources) is { } resumed)
            {
                return $"after resuming: {resumed}";
            }
        }

        StateRunner.Step("the document integrity check");
        store.CheckIntegrity();
        store.Environment.CheckIntegrity();
        return null;
    }

    /// <summary>What differs between the notes and one note per change of <paramref name="expected"/>, or null.</summary>
    private static string? Problem(List<string> notes, IEnumerable<long> expected)
    {
        var derived = notes.Where(t => t != "noise").ToList();
        var wanted = expected.Select(v => "v" + v).ToList();
        var twice = derived.GroupBy(t => t).Where(g => g.Count() > 1).Select(g => g.Key).ToList();
        var missing = wanted.Except(derived).ToList();
        var extra = derived.Except(wanted).ToList();
        return twice.Count == 0 && missing.Count == 0 && extra.Count == 0
            ? null
            : $"derived twice [{string.Join(", ", twice)}], missing [{string.Join(", ", missing)}], beyond the position [{string.Join(", ", extra)}]";
    }
}
