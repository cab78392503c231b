namespace Voron.LoadTests.Load;

/// <summary>
/// One phase of a scenario's load, in NBomber's vocabulary. Closed: <see cref="KeepConstant"/> keeps
/// a number of copies running, each starting its next invocation when its previous one ends (this
/// measures throughput at a concurrency). Open: <see cref="Inject"/> starts invocations on a fixed
/// schedule whatever the system does, and <see cref="RampingInject"/> moves that rate linearly
/// from the previous phase's; each invocation's latency runs from its scheduled start, so a system
/// that falls behind shows it as latency (no coordinated omission). <see cref="Pause"/> starts
/// nothing. <see cref="IterationsForConstant"/> is a closed phase that ends after a number of
/// invocations instead of a time. The phases of a scenario run one after the other.
/// </summary>
internal abstract record LoadSimulation(TimeSpan During)
{
    /// <summary>Invocations per second this phase asks for at <paramref name="secondsIn"/> seconds into it; null for a closed phase.</summary>
    internal abstract double? RateAt(double secondsIn, double previousRate);

    /// <summary>A short text for progress lines and reports: "keep 16", "inject 2,000/s", "pause".</summary>
    public abstract string Describe();
}

/// <summary><see cref="Copies"/> copies, each invoking the scenario in a loop, for <see cref="LoadSimulation.During"/>.</summary>
internal sealed record KeepConstant(int Copies, TimeSpan During) : LoadSimulation(During)
{
    internal override double? RateAt(double secondsIn, double previousRate) => null;

    public override string Describe() => $"keep {Copies}";
}

/// <summary><see cref="Copies"/> copies, each invoking the scenario in a loop, until <see cref="Iterations"/> invocations in all have started (a fixed amount of work: a bulk load, a replayed trace).</summary>
internal sealed record IterationsForConstant(int Copies, long Iterations) : LoadSimulation(TimeSpan.Zero)
{
    internal override double? RateAt(double secondsIn, double previousRate) => null;

    public override string Describe() => $"keep {Copies} for {Iterations:N0}";
}

/// <summary><see cref="Rate"/> invocations per <see cref="Interval"/>, evenly spaced, for <see cref="LoadSimulation.During"/>.</summary>
internal sealed record Inject(int Rate, TimeSpan Interval, TimeSpan During) : LoadSimulation(During)
{
    public double PerSecond => Rate / Interval.TotalSeconds;

    internal override double? RateAt(double secondsIn, double previousRate) => PerSecond;

    public override string Describe() => $"inject {PerSecond:N0}/s";
}

/// <summary>From the previous phase's rate (0 after a closed phase or none) to <see cref="Rate"/> per <see cref="Interval"/>, linearly over <see cref="LoadSimulation.During"/>.</summary>
internal sealed record RampingInject(int Rate, TimeSpan Interval, TimeSpan During) : LoadSimulation(During)
{
    public double PerSecond => Rate / Interval.TotalSeconds;

    internal override double? RateAt(double secondsIn, double previousRate) =>
        previousRate + ((PerSecond - previousRate) * Math.Clamp(secondsIn / During.TotalSeconds, 0, 1));

    public override string Describe() => $"ramp to {PerSecond:N0}/s";
}

/// <summary>Nothing for <see cref="LoadSimulation.During"/>.</summary>
internal sealed record Pause(TimeSpan During) : LoadSimulation(During)
{
    internal override double? RateAt(double secondsIn, double previousRate) => 0;

    public override string Describe() => "pause";
}

/// <summary>The simulations by NBomber's names: <c>Simulation.KeepConstant(copies: 16, during: ...)</c>.</summary>
internal static class Simulation
{
    public static LoadSimulation KeepConstant(int copies, TimeSpan during)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(copies);
        return new KeepConstant(copies, Positive(during));
    }

    public static LoadSimulation IterationsForConstant(int copies, long iterations)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(copies);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(iterations);
        return new IterationsForConstant(copies, iterations);
    }

    public static LoadSimulation Inject(int rate, TimeSpan interval, TimeSpan during)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(rate);
        return new Inject(rate, Positive(interval), Positive(during));
    }

    public static LoadSimulation RampingInject(int rate, TimeSpan interval, TimeSpan during)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(rate);
        return new RampingInject(rate, Positive(interval), Positive(during));
    }

    public static LoadSimulation Pause(TimeSpan during) => new Pause(Positive(during));

    private static TimeSpan Positive(TimeSpan value, [System.Runtime.CompilerServices.CallerArgumentExpression(nameof(value))] string? name = null) =>
        value > TimeSpan.Zero ? value : throw new ArgumentOutOfRangeException(name, value, $"{name} must be longer than zero.");
}
