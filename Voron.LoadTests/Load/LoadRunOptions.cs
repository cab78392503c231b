namespace Voron.LoadTests.Load;

/// <summary>How <see cref="LoadRunner"/> reports while it runs.</summary>
internal sealed record LoadRunOptions
{
    /// <summary>Where progress lines go (rate, p99, failures, time left); null for none.</summary>
    public TextWriter? Progress { get; init; }

    /// <summary>The timeline's interval (NBomber's ReportingInterval); default 1 s.</summary>
    public TimeSpan ReportingInterval { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>How often a progress line is printed; runs shorter than this print none. Default 2 s.</summary>
    public TimeSpan ProgressInterval { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>Put before the scenario's name in progress lines (e.g. the experiment's round).</summary>
    public string ProgressPrefix { get; init; } = "";

    /// <summary>The fewest intervals a timed run's timeline has, so its chart draws a line rather than a point at the right edge.</summary>
    internal const int MinimumIntervals = 20;

    /// <summary>
    /// A reporting interval that fits a run of <paramref name="duration"/>: 1 s for runs of
    /// <see cref="MinimumIntervals"/> seconds or more; shorter ones (a quick run's 1 s loads) get
    /// <see cref="MinimumIntervals"/> intervals, none under 50 ms. A run without a set duration
    /// (a count of iterations) keeps 1 s.
    /// </summary>
    public static TimeSpan IntervalFor(TimeSpan duration)
    {
        var second = TimeSpan.FromSeconds(1);
        if (duration <= TimeSpan.Zero || duration >= second * MinimumIntervals)
        {
            return second;
        }

        var interval = duration / MinimumIntervals;
        return interval < TimeSpan.FromMilliseconds(50) ? TimeSpan.FromMilliseconds(50) : interval;
    }
}
