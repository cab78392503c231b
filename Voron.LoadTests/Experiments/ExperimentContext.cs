namespace Voron.LoadTests.Experiments;

/// <summary>
/// What an experiment runs with: where its data goes, whether it is a quick run, where it
/// reports, the disk (real, or with a simulated flush delay: <c>--flush-delay</c>), and the
/// machine's preflight figures that every report states (<see cref="Preflight"/>).
/// </summary>
internal sealed class ExperimentContext : IDisposable
{
    private readonly bool _ownsDirectory;

    private Preflight? _preflight;

    private ExperimentContext(TextWriter output, bool quick, string dataDirectory, bool ownsDirectory, string reportsDirectory, SimulatedDisk disk, Preflight? preflight)
    {
        _preflight = preflight;
        Output = output;
        Quick = quick;
        DataDirectory = dataDirectory;
        _ownsDirectory = ownsDirectory;
        ReportsDirectory = reportsDirectory;
        Disk = disk;
        _device = new Lazy<DeviceIo?>(() => DeviceIo.For(dataDirectory));
    }

    public TextWriter Output { get; }

    /// <summary>A run under a minute, with smaller counts: for smoke tests and CI.</summary>
    public bool Quick { get; }

    /// <summary>A directory the experiment may fill; deleted afterwards when the program made it.</summary>
    public string DataDirectory { get; }

    /// <summary>Where the report goes (--reports): files an experiment writes beside it, such as charts, go here too.</summary>
    public string ReportsDirectory { get; }

    /// <summary>The block device under the data directory, for device-wide byte counts (<see cref="WriteCounters"/>); null where it cannot be found.</summary>
    public DeviceIo? Device => _device.Value;

    private readonly Lazy<DeviceIo?> _device;

    /// <summary>The disk the stores run on: the real one, or with a simulated flush delay (<see cref="SimulatedDisk"/>).</summary>
    public SimulatedDisk Disk { get; }

    /// <summary>The machine's figures, measured on first use unless a run measured them already (<paramref name="preflight"/> of <see cref="Create"/>).</summary>
    public Preflight Preflight => _preflight ??= Preflight.Measure(this);

    internal static ExperimentContext Create(TextWriter output, bool quick, string? directory, string reportsDirectory = "reports", SimulatedDisk? disk = null, Preflight? preflight = null)
    {
        disk ??= SimulatedDisk.None;
        if (directory != null)
        {
            Directory.CreateDirectory(directory);
            return new ExperimentContext(output, quick, Path.GetFullPath(directory), ownsDirectory: false, reportsDirectory, disk, preflight);
        }

        var temporary = Path.Combine(Path.GetTempPath(), "voron-loadtests-" + Guid.NewGuid().ToString("N")[..12]);
        Directory.CreateDirectory(temporary);
        return new ExperimentContext(output, quick, temporary, ownsDirectory: true, reportsDirectory, disk, preflight);
    }

    /// <summary>
    /// A report with the facts every experiment states: the machine (CPU model, cores, memory,
    /// kernel), the file system under the data directory with its mount options, the device's
    /// write cache, the preflight's durable-write latency and bandwidth (<see cref="Preflight"/>),
    /// and the disk's simulated flush delay (<c>flushDelayMs</c>, 0 for the real disk).
    /// </summary>
    public Report NewReport(string experiment, string title)
    {
        var report = new Report(experiment, title);
        report.AddFact("quick", Quick);
        MachineDescription.For(DataDirectory).AddTo(report);
        Preflight.AddTo(report);
        Disk.AddTo(report);
        return report;
    }

    /// <summary>A fresh subdirectory of <see cref="DataDirectory"/> for one engine or one run.</summary>
    public string NewDirectory(string name)
    {
        var path = Path.Combine(DataDirectory, name);
        if (Directory.Exists(path))
        {
            Directory.Delete(path, recursive: true);
        }

        Directory.CreateDirectory(path);
        return path;
    }

    /// <summary>Runs one scenario of the load model (<see cref="LoadRunner"/>) with progress lines on <see cref="Output"/> (none when <paramref name="quiet"/>) and a timeline whose intervals fit its length (<see cref="LoadRunOptions.IntervalFor"/>).</summary>
    public Task<ScenarioStats> RunScenarioAsync(ScenarioProps scenario, string progressPrefix = "", bool quiet = false, CancellationToken cancellationToken = default) =>
        LoadRunner.RunAsync(
            scenario,
            new LoadRunOptions { Progress = quiet ? null : Output, ProgressPrefix = progressPrefix, ReportingInterval = LoadRunOptions.IntervalFor(scenario.Duration) },
            cancellationToken);

    /// <summary>Prints a progress line, prefixed with the time since the program started.</summary>
    public void Progress(string message) =>
        Output.WriteLine($"[{Environment.TickCount64 / 1000.0 - StartSeconds,7:F1}s] {message}");

    private static readonly double StartSeconds = Environment.TickCount64 / 1000.0;

    public void Dispose()
    {
        if (_ownsDirectory && Directory.Exists(DataDirectory))
        {
            Directory.Delete(DataDirectory, recursive: true);
        }
    }
}
