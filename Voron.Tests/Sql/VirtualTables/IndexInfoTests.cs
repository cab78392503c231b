namespace Voron.Tests.Sql.VirtualTables;

/// <summary>What xBestIndex sees through IndexInfo, and what its answers do to the plan and to xFilter.</summary>
public sealed class IndexInfoTests
{
    private const string Name = "interop_plan_series";

    [Fact]
    public void BestIndex_sees_hidden_argument_constraints_and_their_values_reach_Filter()
    {
        var module = new SeriesModule(Name);
        using var connection = Toy.Open(module);

        Assert.Equal([3, 4, 5], connection.Longs($"SELECT value FROM {Name}(3, 5)"));

        Assert.Contains("Connect " + Name + " create=False args=0", module.Log);
        Assert.Contains("constraint 1 Equal usable=True", module.Log);
        Assert.Contains("constraint 2 Equal usable=True", module.Log);
        Assert.Contains("rhs start=3", module.Log); // a constant is known while planning
        Assert.Contains($"Filter 3 'series start stop' [3, 5]", module.Log);
    }

    [Fact]
    public void Omit_tells_SQLite_not_to_recheck_a_constraint()
    {
        // Filter ignores "value > ?": with omit SQLite trusts it and the rows show it; without
        // omit SQLite re-checks and drops them.
        var trusting = new SeriesModule(Name) { OmitGreaterThan = true };
        using (var connection = Toy.Open(trusting))
        {
            Assert.Equal([1, 2, 3, 4, 5], connection.Longs($"SELECT value FROM {Name}(1, 5) WHERE value > 3"));
            Assert.Contains("Filter 19 'series start stop gt' [1, 5, 3]", trusting.Log);
        }

        var checking = new SeriesModule(Name) { OmitGreaterThan = false };
        using (var connection = Toy.Open(checking))
        {
            Assert.Equal([4, 5], connection.Longs($"SELECT value FROM {Name}(1, 5) WHERE value > 3"));
        }
    }

    [Fact]
    public void TryUseInList_hands_the_whole_IN_list_to_one_Filter_sorted_and_deduplicated()
    {
        var module = new SeriesModule(Name);
        using var connection = Toy.Open(module);

        Assert.Equal([2, 7, 9], connection.Longs($"SELECT value FROM {Name}(1, 10) WHERE value IN (9, 2, 7, 2, 12)"));

        var filters = module.Log.Where(l => l.StartsWith("Filter", StringComparison.Ordinal)).ToList();
        Assert.Equal(["Filter 7 'series start stop in' [1, 10, IN(2,7,9,12)]"], filters);
        Assert.Contains("collation BINARY", module.Log);
    }

    [Fact]
    public void Collation_reports_the_constraints_collating_sequence()
    {
        var module = new SeriesModule(Name);
        using var connection = Toy.Open(module);

        _ = connection.Longs($"SELECT value FROM {Name}(1, 3) WHERE value = 2 COLLATE NOCASE");

        Assert.Contains("collation NOCASE", module.Log);
    }

    [Fact]
    public void IndexString_shows_in_EXPLAIN_QUERY_PLAN()
    {
        using var connection = Toy.Open(new SeriesModule(Name));

        Assert.Contains("VIRTUAL TABLE INDEX 3:series start stop", connection.Plan($"SELECT value FROM {Name}(3, 5)"));
    }

    [Fact]
    public void OrderByConsumed_spares_the_sort_and_the_module_gives_the_order()
    {
        var module = new SeriesModule(Name);
        using var connection = Toy.Open(module);
        var sql = $"SELECT value FROM {Name}(1, 4) ORDER BY value DESC";

        Assert.Equal([4, 3, 2, 1], connection.Longs(sql));
        Assert.Contains("orderby 0 desc=True", module.Log);
        var plan = connection.Plan(sql);
        Assert.Contains("INDEX 11:series start stop desc", plan);
        Assert.DoesNotContain("TEMP B-TREE", plan);
    }

    [Fact]
    public void Without_OrderByConsumed_SQLite_sorts()
    {
        using var connection = Toy.Open(new SeriesModule(Name) { ConsumeOrderBy = false });
        var sql = $"SELECT value FROM {Name}(1, 4) ORDER BY value DESC";

        Assert.Equal([4, 3, 2, 1], connection.Longs(sql));
        Assert.Contains("USE TEMP B-TREE FOR ORDER BY", connection.Plan(sql));
    }

    [Fact]
    public void ColumnsUsed_and_Distinct_describe_the_query()
    {
        var module = new SeriesModule(Name);
        using var connection = Toy.Open(module);

        _ = connection.Longs($"SELECT value FROM {Name}(1, 3)");
        _ = connection.Longs($"SELECT DISTINCT value FROM {Name}(1, 3)");

        var lines = module.Log.Where(l => l.StartsWith("colUsed", StringComparison.Ordinal)).ToList();
        Assert.Equal(["colUsed=0x7 distinct=0", "colUsed=0x7 distinct=2"], lines);
    }
}
