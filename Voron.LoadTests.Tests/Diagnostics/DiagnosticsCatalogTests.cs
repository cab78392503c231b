using Voron.Diagnostics;
using Voron.Diagnostics.Experiments;

namespace Voron.LoadTests.Tests.Diagnostics;

/// <summary>
/// The diagnostics program's command line: it lists the one-off diagnostics, each with the common
/// options, and the load-test program, whose list is the suites a user runs to choose a store, has
/// none of them.
/// </summary>
public sealed class DiagnosticsCatalogTests
{
    private static readonly string[] Diagnostics = ["machine", "journal", "sections", "http", "sqldocs", "anatomy", "stalls", "syscalls", "filesize", "compression", "checksums"];

    [Theory]
    [InlineData(null)]
    [InlineData("list")]
    [InlineData("--help")]
    public async Task Help_list_and_no_argument_print_every_diagnostic_and_exit_with_0(string? argument)
    {
        using var output = new StringWriter();

        var exit = await DiagnosticsCatalog.RunAsync(argument == null ? [] : [argument], output);

        Assert.Equal(0, exit);
        Assert.Equal(Diagnostics.Order(StringComparer.Ordinal), DiagnosticsCatalog.All.Select(d => d.Name).Order(StringComparer.Ordinal));
        Assert.All(Diagnostics, name => Assert.Contains(name, output.ToString(), StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("machine", typeof(MachineExperiment))]
    [InlineData("journal", typeof(JournalExperiment))]
    [InlineData("sections", typeof(SectionsExperiment))]
    [InlineData("http", typeof(Voron.Diagnostics.Experiments.Http.HttpExperiment))]
    [InlineData("sqldocs", typeof(SqlDocsExperiment))]
    [InlineData("compression", typeof(CompressionExperiment))]
    public void Each_diagnostic_is_registered_by_its_name(string name, Type type) => Assert.IsType(type, DiagnosticsCatalog.Find(name));

    [Fact]
    public async Task The_load_test_program_knows_none_of_the_diagnostics()
    {
        using var list = new StringWriter();
        await LoadTests.CommandLine.RunAsync(["list"], list);

        foreach (var name in Diagnostics.Append(SyscallsChild.Command))
        {
            Assert.Null(ExperimentCatalog.Find(name));
            Assert.True(LoadTests.CommandLine.Parse([name]).Errors.Count > 0 || ExperimentCatalog.Moved.ContainsKey(name), name);
            Assert.DoesNotContain($"  {name} ", list.ToString(), StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Every_diagnostic_takes_the_common_options_and_the_writing_ones_a_flush_delay()
    {
        foreach (var diagnostic in DiagnosticsCatalog.All)
        {
            var parsed = DiagnosticsCatalog.Parse([diagnostic.Name, "--quick", "--dir", "/tmp/x", "--reports", "r"]);
            Assert.Empty(parsed.Errors);
            Assert.Equal(diagnostic.Name, parsed.CommandResult.Command.Name);
            Assert.True(parsed.GetValue(LoadTests.CommandLine.Quick));
            Assert.Equal("/tmp/x", parsed.GetValue(LoadTests.CommandLine.Directory));

            Assert.Equal(diagnostic.Writes, DiagnosticsCatalog.Parse([diagnostic.Name, "--flush-delay", "0.5"]).Errors.Count == 0);
        }

        Assert.Equal(["journal", "sections", "anatomy", "stalls"], DiagnosticsCatalog.All.Where(d => d.Writes).Select(d => d.Name));
    }

    [Fact]
    public void The_syscalls_child_is_a_hidden_command_of_the_diagnostics_program()
    {
        Assert.Empty(DiagnosticsCatalog.Parse([SyscallsChild.Command, "voron", "/tmp/x", "10"]).Errors);
        Assert.NotEmpty(DiagnosticsCatalog.Parse([SyscallsChild.Command, "rocksdb", "/tmp/x", "10"]).Errors);
    }

    [Fact]
    public void Strace_summaries_are_parsed_with_and_without_an_errors_column()
    {
        const string text = """
            % time     seconds  usecs/call     calls    errors syscall
            ------ ----------- ----------- --------- --------- -----------------------
             58.47    0.045518        1011        45         8 futex
              3.29    0.002562           5       470           mprotect
              0.10    0.000100          50         2           fdatasync
            ------ ----------- ----------- --------- --------- -----------------------
            100.00    0.077847          43      1779       334 total
            """;

        var counts = SyscallsExperiment.ParseSummary(text);

        Assert.Equal(new Dictionary<string, long> { ["futex"] = 45, ["mprotect"] = 470, ["fdatasync"] = 2 }, counts);
    }
}
