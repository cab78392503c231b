namespace Voron.LoadTests.Experiments;

internal sealed partial class BackupExperiment
{
    internal const string WritersTable = "writers";
    internal const string WritersSummaryTable = "writers summary";
    internal const string NoBackup = "no backup";
    internal const string BackupsRunning = "backups running";
    private const string WritersTree = "writers";
    private const string PutStep = "put";
    private const int ValueSize = 1024;

    /// <summary>Keys each writer cycles through (updates once it has written them all), so the store stays near its size.</summary>
    private const int KeysPerWriter = 1024;

    /// <summary>
    /// The store under a closed load of merged writers (each copy one durable 1 KiB put at a time
    /// through ExecuteAsync), in windows alternating between no backup and backups running back to
    /// back for the whole window (started before the window, cancelled after it), repeated; each
    /// window ends with the store's flush to the data file, timed (the load model's settle).
    /// </summary>
    private async Task MeasureWritersAsync(ExperimentContext context, Report report, string store, TimeSpan window, int rounds)
    {
        report.AddFact("writers", _writers);
        report.AddFact("writersWindowSeconds", window.TotalSeconds);
        report.AddFact("writersValueBytes", ValueSize);
        using var environment = StorageEnvironment.Open(context.Disk.VoronOptions(store));
        var sequences = new long[_writers];
        var values = Enumerable.Range(0, _writers).Select(c => Enumerable.Repeat((byte)('a' + c % 26), ValueSize).ToArray()).ToArray();

        // Every writer's keys written once, untimed: each window then updates keys that exist, so the
        // first window does not pay for the tree's growth and the store stays the same size.
        await Task.WhenAll(Enumerable.Range(0, _writers).Select(c => environment.ExecuteAsync(tx =>
        {
            var tree = tx.CreateTree(WritersTree);
            for (var k = 0; k < KeysPerWriter; k++)
            {
                tree.Put(KvDataSet.Key((long)c * KeysPerWriter + k), values[c]);
            }
        }))).ConfigureAwait(false);
        environment.FlushToDataFile();
        var scenario = Scenario.Create("writers", c => Step.Run(PutStep, c, async () =>
            {
                var sequence = sequences[c.CopyNumber]++;
                var key = KvDataSet.Key((long)c.CopyNumber * KeysPerWriter + sequence % KeysPerWriter);
                // A value that differs from the stored one: a put of the bytes already there changes
                // no page, so its transaction commits nothing and never waits for the journal.
                var value = values[c.CopyNumber];
                System.Buffers.Binary.BinaryPrimitives.WriteInt64LittleEndian(value, sequence + 1);
                await environment.ExecuteAsync(tx => tx.CreateTree(WritersTree).Put(key, value)).ConfigureAwait(false);
                return Response.Ok(sizeBytes: key.Length + ValueSize);
            }))
            .WithoutWarmUp()
            .WithSettle(() => environment.FlushToDataFile());

        // A warm-up window of its own, not recorded, before either mode's first.
        await context.RunScenarioAsync(scenario.WithLoadSimulations(Simulation.KeepConstant(_writers, TimeSpan.FromSeconds(Math.Min(2, window.TotalSeconds)))), "writers warm-up ", quiet: true)
            .ConfigureAwait(false);

        var modes = new[] { NoBackup, BackupsRunning };
        var results = modes.ToDictionary(m => m, _ => new List<ScenarioStats>());
        var backups = new List<BackupResult>();
        var load = $"closed {_writers}";
        for (var round = 1; round <= rounds; round++)
        {
            foreach (var mode in round % 2 == 1 ? modes : Enumerable.Reverse(modes))
            {
                context.Progress($"writers round {round} of {rounds}, {mode} ...");
                using var during = new BackupLoop(environment, Path.Combine(context.DataDirectory, "backups-during"));
                if (mode == BackupsRunning)
                {
                    during.Start();
                }

                var stats = await context.RunScenarioAsync(scenario.WithLoadSimulations(Simulation.KeepConstant(_writers, window)), $"writers {mode} ").ConfigureAwait(false);
                var completed = await during.StopAsync().ConfigureAwait(false);
                if (stats.AllFailCount > 0)
                {
                    throw new InvalidOperationException($"writers ({mode}): {stats.AllFailCount:N0} writes failed: " +
                                                        string.Join("; ", stats.StatusCodes.Where(s => s.IsError).Select(s => $"{s.Count:N0} x {s.StatusCode}: {s.Message}")));
                }

                if (mode == BackupsRunning && completed.Count == 0)
                {
                    throw new InvalidOperationException($"writers ({mode}): the backup loop ended without completing a backup.");
                }

                backups.AddRange(completed);
                results[mode].Add(stats);
                report.AddScenario(mode, load, round, stats);
                report.AddRow(
                    ("table", WritersTable),
                    ("backups", mode),
                    ("round", round),
                    ("okRps", stats.LoadRps),
                    ("p50Ms", stats.Ok.Latency.P50Ms),
                    ("p99Ms", stats.Ok.Latency.P99Ms),
                    ("maxMs", stats.Ok.Latency.MaxMs),
                    ("backupsCompleted", mode == BackupsRunning ? completed.Count : null),
                    ("maxWriterPauseMs", completed.Count > 0 ? completed.Max(b => b.WriterPause.TotalMilliseconds) : null));
                context.Progress($"writers round {round}, {mode}: {stats.LoadRps:N0} ok/s, p99 {stats.Ok.Latency.P99Ms:F2} ms" +
                                 (mode == BackupsRunning ? $", {completed.Count} backups" : ""));
            }
        }

        var withoutP99 = LatencyStats.Pooled(results[NoBackup].Select(s => s.Ok)).P99Ms;
        foreach (var mode in modes)
        {
            var latency = LatencyStats.Pooled(results[mode].Select(s => s.Ok));
            var ok = results[mode].Sum(s => s.Ok.Count);
            var seconds = results[mode].Sum(s => s.Seconds - s.SettleSeconds);
            var ratio = latency.P99Ms / withoutP99;
            var during = mode == BackupsRunning;
            report.AddRow(
                ("table", WritersSummaryTable),
                ("backups", mode),
                ("rounds", results[mode].Count),
                ("okRps", seconds > 0 ? ok / seconds : 0),
                ("p50Ms", latency.P50Ms),
                ("p99Ms", latency.P99Ms),
                ("p99Ratio", ratio),
                ("backupsCompleted", during ? backups.Count : null),
                ("maxWriterPauseMs", during && backups.Count > 0 ? backups.Max(b => b.WriterPause.TotalMilliseconds) : null),
                ("target", during ? P99Target : null),
                ("met", during ? ratio <= P99Target : null));
        }

        report.AddNote($"writers: {_writers} copies of a closed load, each one durable put of an 8-byte key and a {ValueSize}-byte value at a time through the merger (ExecuteAsync), " +
                       $"{window.TotalSeconds:N0} s windows, {rounds} rounds of each mode alternating; {BackupsRunning}: BackupAsync (Verify on) of the same store back to back from before the window " +
                       "starts until it ends (the one in flight then cancelled), each copy deleted after it completes. p50/p99 pool every round's writes (their histograms added); okRps: ok writes " +
                       $"over the load's time (the settle left out). p99Ratio: p99 over {NoBackup}'s. Target: at most {P99Target}x.");
    }

    /// <summary>Backups of one store back to back, from <see cref="Start"/> until <see cref="StopAsync"/> cancels the one in flight.</summary>
    private sealed class BackupLoop(StorageEnvironment environment, string directory) : IDisposable
    {
        private readonly CancellationTokenSource _stop = new();
        private readonly List<BackupResult> _completed = []; // guarded by itself
        private Task? _loop;
        private volatile bool _ending;

        public void Start() => _loop = Task.Run(RunAsync);

        /// <summary>
        /// Ends the loop, removes the copies, and returns the backups that completed. A backup in
        /// flight is cancelled, unless none has completed yet (a window shorter than one backup,
        /// or a busy machine): that one finishes, so a round always reports a backup.
        /// </summary>
        public async Task<List<BackupResult>> StopAsync()
        {
            if (_loop == null)
            {
                return _completed;
            }

            _ending = true;
            lock (_completed)
            {
                if (_completed.Count > 0)
                {
                    _stop.Cancel();
                }
            }

            try
            {
                await _loop.ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // The backup in flight was cancelled: expected, it leaves nothing under its final name.
            }
            finally
            {
                DeleteDirectory(directory);
            }

            return _completed;
        }

        public void Dispose() => _stop.Dispose();

        private async Task RunAsync()
        {
            for (var n = 0; !_stop.IsCancellationRequested; n++)
            {
                var destination = Path.Combine(directory, $"b{n}");
                var result = await environment.BackupAsync(destination, new BackupOptions { Verify = true }, _stop.Token).ConfigureAwait(false);
                lock (_completed)
                {
                    _completed.Add(result);
                }

                DeleteDirectory(destination);
                if (_ending)
                {
                    return; // the window ended while this, the first, was in flight
                }
            }
        }
    }
}
