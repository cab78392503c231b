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
}
