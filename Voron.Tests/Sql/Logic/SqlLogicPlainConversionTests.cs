namespace Voron.Tests.Sql.Logic;

/// <summary>
/// The voron_docs conversion of the sqllogictest scripts (<see cref="SqlLogicConversion"/>) with
/// plain SQLite tables in place of voron_docs tables and CREATE INDEX in place of IndexDefinitions:
/// the same statements run and the same ones are skipped, so a script that fails here fails
/// because of the conversion (its constraints as unique indexes, a fresh collection per re-created
/// table, a skipped trigger), not because of the module. Sampled as <see cref="SqlLogicVoronDocsTests"/>.
/// </summary>
public sealed class SqlLogicPlainConversionTests(ITestOutputHelper output)
{
    public static TheoryData<string> Scripts() => SqlLogicTests.Scripts();

    [Theory]
    [MemberData(nameof(Scripts))]
    public void Script_gives_the_expected_results_converted_to_plain_tables(string script)
    {
        using var store = new SqlStore();
        using var connection = store.Open("slt", pooling: false);
        SqlLogicConvertedRun.Run(output, script, new SqlLogicConversion(connection, new SqlLogicPlainTarget()), knownDefects: null);
    }
}
