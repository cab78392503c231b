using System.Runtime.InteropServices;

namespace Voron.LoadTests.Measurement.Interop;

/// <summary>
/// Sleeps with microsecond resolution: <see cref="Thread.Sleep(TimeSpan)"/> rounds to whole
/// milliseconds, too coarse for a 0.25 ms simulated flush or an open-loop arrival schedule at
/// 50,000 operations a second. On Linux this is <c>clock_nanosleep(CLOCK_MONOTONIC)</c>, which
/// sleeps (it burns no CPU, as a waiting disk does not); the kernel's timer slack (50 µs by
/// default) still adds to every sleep, so a sleep lasts at least the time asked, never less.
/// Elsewhere it falls back to <see cref="Thread.Sleep(TimeSpan)"/>.
/// </summary>
internal static class PreciseSleep
{
    private const int ClockMonotonic = 1;
    private const int Interrupted = 4; // EINTR: a signal woke the sleep early; sleep the rest

    /// <summary>Sleeps for at least <paramref name="duration"/>.</summary>
    public static void For(TimeSpan duration)
    {
        if (duration <= TimeSpan.Zero)
        {
            return;
        }

        if (!OperatingSystem.IsLinux())
        {
            Thread.Sleep(duration);
            return;
        }

        var until = Stopwatch.GetTimestamp() + (long)(duration.TotalSeconds * Stopwatch.Frequency);
        while (true)
        {
            var left = until - Stopwatch.GetTimestamp();
            if (left <= 0)
            {
                return;
            }

            var nanoseconds = (long)(left * (1e9 / Stopwatch.Frequency));
            var request = new Timespec { Seconds = nanoseconds / 1_000_000_000, Nanoseconds = nanoseconds % 1_000_000_000 };
            var result = clock_nanosleep(ClockMonotonic, 0, in request, IntPtr.Zero);
            if (result != 0 && result != Interrupted)
            {
                Thread.Sleep(TimeSpan.FromTicks(left * TimeSpan.TicksPerSecond / Stopwatch.Frequency));
                return;
            }
        }
    }

    /// <summary>Sleeps until the <see cref="Stopwatch"/> timestamp <paramref name="timestamp"/> (at once if it has passed).</summary>
    public static void Until(long timestamp) =>
        For(TimeSpan.FromTicks((long)((timestamp - Stopwatch.GetTimestamp()) * (double)TimeSpan.TicksPerSecond / Stopwatch.Frequency)));

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    // Returns 0 or an error number (not -1 and errno). Blittable: no marshalling, no unsafe code.
    [DllImport("libc", EntryPoint = "clock_nanosleep")]
    private static extern int clock_nanosleep(int clock, int flags, in Timespec request, IntPtr remaining);
}
