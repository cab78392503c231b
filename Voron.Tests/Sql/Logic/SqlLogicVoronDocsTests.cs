using Voron.Documents;
using Voron.SqliteVfs;
using Xunit.Abstractions;

namespace Voron.Tests.Sql.Logic;

/// <summary>
/// SQLite's sqllogictest scripts with every table a voron_docs table whose columns are JSON paths
/// and every index an <see cref="IndexDefinition"/> (the rules: <see cref="SqlLogicConversion"/>).
/// The scripts' INSERTs and queries run unchanged and must give the scripts' expected results; a
/// script that creates an index must have a query whose plan names it (<see cref="SqlLogicConvertedRun"/>).
/// <see cref="SqlLogicPlainConversionTests"/> checks the conversion itself on plain tables. The
/// default run takes a deterministic sample of each script's queries (<see cref="SqlLogicSample"/>);
/// VORON_SOAK runs them all, known defects included.
/// </summary>
public sealed class SqlLogicVoronDocsTests(ITestOutputHelper output)
{
    /// <summary>
    /// Records of the scripts that fail on voron_docs because of the module, not the conversion,
    /// kept out of the default run until the module is fixed (each is in the report). Key: script
    /// and line of the record; value: what goes wrong.
    /// </summary>
    internal static readonly Dictionary<(string Script, int Line), string> KnownModuleDefects = new()
    {
    };

    public static TheoryData<string> Scripts() => SqlLogicTests.Scripts();

    [Fact]
    public void KnownModuleDefects_each_name_a_record_of_a_script()
    {
        foreach (var ((script, line), what) in KnownModuleDefects)
        {
            Assert.True(SqlLogicScript.Parse(SqlLogicTests.ScriptPath(script)).Any(r => r.Line == line), $"{script}:{line} is no record's first line ({what})");
        }
    }

    [Theory]
    [MemberData(nameof(Scripts))]
    public void Script_gives_the_expected_results_on_voron_docs_tables(string script)
    {
        using var store = new SqlStore();
        using var documents = DocumentStore.Open(store.Environment);
        store.Registration.UseDocuments(documents);
        using var connection = store.Open("slt", pooling: false);
        SqlLogicConvertedRun.Run(output, script, new SqlLogicConversion(connection, new SqlLogicVoronDocsTarget(documents)), KnownModuleDefects);
    }
}
