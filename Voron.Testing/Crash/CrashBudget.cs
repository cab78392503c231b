using System.Globalization;
using Xunit.Abstractions;

namespace Voron.Testing.Crash;

/// <summary>
/// How many crash states and process kills a run checks. The default fits the CI budget;
/// <c>VORON_SOAK=N</c> asks for about N crash states in total (and N / 1000 process kills, at
/// least the default) for long runs outside CI. Every test prints what it checked and its seed;
/// a failure replays with <c>VORON_SEED</c>.
/// </summary>
internal static class CrashBudget
{
    private static long s_totalStates;

    /// <summary>VORON_SOAK, or null for the default (CI) run.</summary>
    public static long? Soak { get; } =
        long.TryParse(Environment.GetEnvironmentVariable("VORON_SOAK"), NumberStyles.None, CultureInfo.InvariantCulture, out var soak) && soak > 0 ? soak : null;

    /// <summary>
    /// How many times each crash point of the canonical scenarios (EnumeratedCrashTests,
    /// MergedCommitCrashTests, LazyModeCrashTests, GarbageSectorTests: about 10,000 states a
    /// round) is crashed with each damage model: 2 by default; in a soak, 40% of its states.
    /// </summary>
    public static int DamageRounds => Soak is { } soak ? (int)Math.Clamp(soak * 0.4 / 10_000, 2, 100_000) : 2;

    /// <summary>Power losses per recovery crash point in RecoveryCrashTests (about 5,000 points in a soak): 20% of a soak's states.</summary>
    public static int RecoveryRounds => Soak is { } soak ? (int)Math.Clamp(soak * 0.2 / 5_000, 1, 100_000) : 1;

    /// <summary>Process kills (ProcessKillTests): 200 by default, VORON_SOAK / 1000 in a soak.</summary>
    public static int Kills => Soak is { } soak ? (int)Math.Clamp(soak / 1000, 200, 1_000_000) : 200;

    /// <summary>
    /// VORON_PORTABLE_FULL=1: the real-file-system tests run as many steps on the portable file
    /// system as on the POSIX one (by default they run a subset there, to keep CI short).
    /// </summary>
    public static bool PortableFull { get; } = Environment.GetEnvironmentVariable("VORON_PORTABLE_FULL") == "1";

    /// <summary>Process kills on the portable file system: 40 by default, <see cref="Kills"/> with VORON_PORTABLE_FULL=1.</summary>
    public static int PortableKills => PortableFull ? Kills : 40;

    /// <summary>Scales a default count by the soak: <paramref name="share"/> of the soak's states go to this test.</summary>
    public static int Count(int defaultCount, double share) =>
        Soak is { } soak ? (int)Math.Max(defaultCount, Math.Min(int.MaxValue, soak * share)) : defaultCount;

    /// <summary>Prints the count and fails the test with the first failures, if any.</summary>
    public static void Report(ITestOutputHelper output, string what, long states, List<string> failures)
    {
        var total = Interlocked.Add(ref s_totalStates, states);
        output.WriteLine($"{what}: {states} crash states checked, {failures.Count} failures (crash states so far in this process: {total})");

        foreach (var failure in failures.Take(20))
        {
            output.WriteLine(failure);
        }

        if (failures.Count != 0)
        {
            throw new CrashCheckException($"{failures.Count} crash states broke the oracle; first: {failures[0]}");
        }
    }
}
