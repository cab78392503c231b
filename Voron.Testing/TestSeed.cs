using Xunit.Abstractions;

namespace Voron.Testing;

/// <summary>
/// Seeds for randomized tests: VORON_SEED when set (to replay a failure), else a fresh one.
/// The seed is printed to the test output and must appear in assertion messages.
/// </summary>
internal static class TestSeed
{
    public static int Next(ITestOutputHelper output, string test)
    {
        var text = System.Environment.GetEnvironmentVariable("VORON_SEED");
        var seed = int.TryParse(text, out var fixedSeed) ? fixedSeed : Random.Shared.Next();
        output.WriteLine($"{test}: seed {seed} (replay with VORON_SEED={seed})");
        return seed;
    }
}
