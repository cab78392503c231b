using System.CommandLine;
using Voron.LoadTests;

namespace Voron.LoadTests.Tests;

/// <summary>The load-test program's command line (System.CommandLine): help, validation, errors that name the bad argument.</summary>
public sealed class CommandLineTests
{
    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    [InlineData("list")]
    [InlineData("help")]
    public async Task Help_and_list_print_every_experiment_and_exit_with_0(string argument)
    {
        using var output = new StringWriter();

        var exit = await CommandLine.RunAsync([argument], output);

        Assert.Equal(0, exit);
        Assert.All(ExperimentCatalog.All, e => Assert.Contains(e.Name, output.ToString(), StringComparison.Ordinal));
    }

    [Fact]
    public async Task An_experiments_help_shows_its_own_options_and_the_common_ones()
    {
        using var output = new StringWriter();

        var exit = await CommandLine.RunAsync(["kv", "--help"], output);

        Assert.Equal(0, exit);
        foreach (var option in new[] { "--entries", "VORON_KV_N", "--quick", "--dir", "--reports" })
        {
            Assert.Contains(option, output.ToString(), StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData(new[] { "kv", "--entries", "0" }, "--entries must be a positive whole number, not '0'")]
    [InlineData(new[] { "kv", "--entries", "many" }, "--entries must be a positive whole number, not 'many'")]
    [InlineData(new[] { "merge", "--callers", "64,,256" }, "--callers must list caller counts")]
    [InlineData(new[] { "churn", "--entries", "5" }, "'--entries'")]
    [InlineData(new[] { "churn", "--no-such-option" }, "'--no-such-option'")]
    [InlineData(new[] { "kv", "--dir" }, "--dir")]
    [InlineData(new[] { "merge", "--flush-delay", "-1" }, "--flush-delay must be a number of milliseconds from 0 to 1000, not '-1'")]
    [InlineData(new[] { "merge", "--flush-delay", "slow" }, "--flush-delay must be a number of milliseconds")]
    [InlineData(new[] { "documents", "--flush-delay", "1" }, "'--flush-delay'")]
    [InlineData(new[] { "ops", "--parts", "restore" }, "--parts must list names from backup, tools, recovery")]
    [InlineData(new[] { "kv", "--engines", "voron,rocksdb" }, "--engines must list names from voron, voron-sealed, voron-portable, sqlite, sqlite-mmap, lmdb")]
    [InlineData(new[] { "merge", "--loops", "sideways" }, "--loops must list names from closed, open")]
    [InlineData(new[] { "kv", "--runs", "0" }, "--runs must be a positive whole number")]
    public async Task A_bad_argument_is_named_and_exits_with_2(string[] args, string expected)
    {
        using var output = new StringWriter();

        var exit = await CommandLine.RunAsync(args, output);

        Assert.Equal(CommandLine.UsageError, exit);
        Assert.Contains(expected, output.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void Every_experiment_has_a_command_and_the_common_options_reach_it()
    {
        foreach (var experiment in ExperimentCatalog.All)
        {
            var parsed = CommandLine.Parse([experiment.Name, "--quick", "--dir", "/tmp/x", "--reports", "r"]);

            Assert.Empty(parsed.Errors);
            Assert.Equal(experiment.Name, parsed.CommandResult.Command.Name);
            Assert.True(parsed.GetValue(CommandLine.Quick));
            Assert.Equal("/tmp/x", parsed.GetValue(CommandLine.Directory));
            Assert.Equal("r", parsed.GetValue(CommandLine.Reports));
        }
    }

    [Fact]
    public void Writing_experiments_take_a_flush_delay_and_the_others_do_not()
    {
        foreach (var experiment in ExperimentCatalog.All)
        {
            var parsed = CommandLine.Parse([experiment.Name, "--flush-delay", "0.5"]);

            Assert.Equal(experiment.Writes, parsed.Errors.Count == 0);
            if (experiment.Writes)
            {
                Assert.Equal(0.5, parsed.GetValue(ExperimentCatalog.FlushDelay));
            }
        }

        Assert.Contains(ExperimentCatalog.All, e => e.Name == "merge" && e.Writes);
        Assert.Contains(ExperimentCatalog.All, e => e.Name == "kv" && e.Writes);
    }

    [Fact]
    public void Engine_and_loop_lists_are_parsed()
    {
        var parsed = CommandLine.Parse(["kv", "--engines", "voron, lmdb", "--runs", "3"]);

        Assert.Empty(parsed.Errors);
        Assert.Equal(["voron", "lmdb"], parsed.GetValue(ExperimentCatalog.KvEngines)!);
        Assert.Equal(3, parsed.GetValue(ExperimentCatalog.Runs));
        Assert.Equal(["open"], CommandLine.Parse(["merge", "--loops", "open"]).GetValue(ExperimentCatalog.MergeLoops)!);
    }

    /// <summary>
    /// Regression: `merge` without --callers got an empty list from the command line and the
    /// closed loop ran no caller count at all (the quick smoke run passed with no rows).
    /// </summary>
    [Fact]
    public void Merge_without_callers_or_loops_runs_the_default_caller_counts_in_both_loops()
    {
        var definition = ExperimentCatalog.All.Single(d => d.Name == "merge");

        var merge = Assert.IsType<MergeExperiment>(definition.Create(CommandLine.Parse(["merge"])));
        var given = Assert.IsType<MergeExperiment>(definition.Create(CommandLine.Parse(["merge", "--callers", "8,32", "--loops", "closed"])));

        Assert.Equal(MergeExperiment.CallerCounts, merge.ClosedLoopCallerCounts);
        Assert.Equal([MergeExperiment.ClosedLoopName, MergeExperiment.OpenLoopName], merge.Loops);
        Assert.Equal([8, 32], given.ClosedLoopCallerCounts);
        Assert.Equal([MergeExperiment.ClosedLoopName], given.Loops);
    }

    [Fact]
    public void A_number_option_falls_back_to_its_environment_variable_and_names_it_when_bad()
    {
        var variable = "VORON_TEST_N_" + Guid.NewGuid().ToString("N")[..8];
        var option = ExperimentOptions.PositiveNumber("--n", variable, "test");
        var command = new RootCommand { option };
        try
        {
            Assert.Null(command.Parse([]).GetValue(option));

            Environment.SetEnvironmentVariable(variable, "42");
            Assert.Equal(42, command.Parse([]).GetValue(option));
            Assert.Equal(7, command.Parse(["--n", "7"]).GetValue(option));

            Environment.SetEnvironmentVariable(variable, "lots");
            var error = Assert.Single(command.Parse([]).Errors);
            Assert.Equal($"{variable} must be a positive whole number, not 'lots'.", error.Message);
        }
        finally
        {
            Environment.SetEnvironmentVariable(variable, null);
        }
    }
}
