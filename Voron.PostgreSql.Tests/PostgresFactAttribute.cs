namespace Voron.PostgreSql.Tests;

/// <summary>
/// A fact that needs a running PostgreSQL server (<see cref="TestPostgres"/>, started at
/// discovery): skipped with the reason when PostgreSQL is not installed or cannot start, never
/// reported as passed without running. With <c>VORON_REQUIRE_PROGRAMS=1</c> (.ci/run) it is never
/// skipped: a machine that should have PostgreSQL fails the test, saying why it did not start.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PostgresFactAttribute : FactAttribute
{
    public PostgresFactAttribute()
    {
        if (Environment.GetEnvironmentVariable("VORON_REQUIRE_PROGRAMS") == "1")
        {
            return; // TestPostgres.Require() fails the test with the reason
        }

        if (TestPostgres.Instance.WhyNot is { } reason)
        {
            Skip = $"needs PostgreSQL: {reason}";
        }
    }
}

/// <summary>A <see cref="PostgresFactAttribute"/> that also needs pgloader (Debian: apt-get install pgloader).</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PgloaderFactAttribute : FactAttribute
{
    public PgloaderFactAttribute()
    {
        var required = Environment.GetEnvironmentVariable("VORON_REQUIRE_PROGRAMS") == "1";
        if (!required && TestPostgres.Instance.WhyNot is { } reason)
        {
            Skip = $"needs PostgreSQL: {reason}";
        }
        else if (!required && Pgloader is null)
        {
            Skip = "needs pgloader on PATH: apt-get install pgloader (Debian 12 has 3.6.9; docs/postgresql.md)";
        }
    }

    /// <summary>pgloader's full path, or null.</summary>
    public static string? Pgloader =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(d => Path.Combine(d, "pgloader")).FirstOrDefault(File.Exists);
}
