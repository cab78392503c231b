using Voron.LoadTests.Load;

namespace Voron.LoadTests.Tests;

/// <summary>
/// Regression: a quick run's 1 s closed load was sampled every second, so its throughput chart was
/// one point at the right edge. A run's timeline now has intervals that fit its length.
/// </summary>
public sealed class ReportingIntervalTests
{
    [Theory]
    [InlineData(1.0, 0.05)]
    [InlineData(5.0, 0.25)]
    [InlineData(0.3, 0.05)]
    [InlineData(20.0, 1.0)]
    [InlineData(600.0, 1.0)]
    [InlineData(0.0, 1.0)]
    public void A_run_gets_intervals_that_fit_its_length(double seconds, double expected) =>
        Assert.Equal(TimeSpan.FromSeconds(expected), LoadRunOptions.IntervalFor(TimeSpan.FromSeconds(seconds)));

    [Fact]
    public void A_quick_one_second_run_has_a_timeline_of_many_points_not_one()
    {
        var interval = LoadRunOptions.IntervalFor(TimeSpan.FromSeconds(1));

        Assert.True(TimeSpan.FromSeconds(1) / interval >= LoadRunOptions.MinimumIntervals);
    }
}
