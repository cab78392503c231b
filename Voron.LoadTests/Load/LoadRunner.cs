namespace Voron.LoadTests.Load;

/// <summary>
/// Runs one scenario (NBomber's <c>NBomberRunner.RegisterScenarios(s).Run()</c> for a single
/// scenario; our experiments run scenarios one after another, engines interleaved, so that no two
/// compete for the machine): init, the copies' states, warm-up (measured and then forgotten) and
/// its settle, the phases in order, the settle inside the measured span, then the copies' state disposed and clean-up. Every
/// invocation and step is counted; failures are results, not exceptions.
/// </summary>
internal static class LoadRunner
{
    public static async Task<ScenarioStats> RunAsync(ScenarioProps scenario, LoadRunOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(scenario);
        if (scenario.LoadSimulations.Count == 0)
        {
            throw new ArgumentException($"Scenario '{scenario.Name}' has no load simulations: call WithLoadSimulations.", nameof(scenario));
        }

        options ??= new LoadRunOptions();
        var run = new LoadRun(scenario, options, cancellationToken);
        try
        {
            if (scenario.Init != null)
            {
                await scenario.Init(cancellationToken).ConfigureAwait(false);
            }

            run.CreateCopies();
            if (scenario.WarmUp > TimeSpan.Zero)
            {
                await run.RunPhaseAsync(WarmUpOf(scenario.LoadSimulations[0], scenario.WarmUp), previousRate: 0).ConfigureAwait(false);
                if (scenario.Settle != null)
                {
                    await scenario.Settle().ConfigureAwait(false); // what the warm-up's writes left is not the measured run's to pay
                }

                run.Reset();
            }

            return await run.MeasureAsync().ConfigureAwait(false);
        }
        finally
        {
            run.DisposeStates();
            if (scenario.Clean != null)
            {
                await scenario.Clean().ConfigureAwait(false);
            }
        }
    }

    /// <summary>The warm-up: the first phase's load for the warm-up's length (a ramp warms up at its target rate).</summary>
    private static LoadSimulation WarmUpOf(LoadSimulation first, TimeSpan during) => first switch
    {
        KeepConstant keep => keep with { During = during },
        Inject inject => inject with { During = during },
        RampingInject ramp => new Inject(Math.Max(1, ramp.Rate), ramp.Interval, during),
        _ => new Pause(during),
    };
}
