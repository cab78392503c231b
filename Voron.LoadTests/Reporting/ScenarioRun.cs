namespace Voron.LoadTests.Reporting;

/// <summary>
/// One scenario run kept whole in a report (<see cref="Report.AddScenario"/>): which engine (or
/// path, or mode) it loaded, under which load ("closed 16", "open 2,000/s"), in which interleaved
/// round, and its results with steps and timeline, for the HTML report's charts and the CSV files.
/// </summary>
internal sealed record ScenarioRun(string Engine, string Load, int Round, ScenarioStats Stats);
