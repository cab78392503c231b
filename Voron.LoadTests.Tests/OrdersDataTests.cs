using System.Globalization;
using Voron.LoadTests.Capabilities.Orders;

namespace Voron.LoadTests.Tests;

/// <summary>The orders workload's data: the same for every call, with the properties the paths and the tests rely on.</summary>
public sealed class OrdersDataTests
{
    private static string Text(Order order) => JsonSerializer.Serialize(order, OrdersJson.Default.Order);

    [Fact]
    public void Customers_products_and_orders_are_the_same_for_the_same_n()
    {
        foreach (var n in new long[] { 0, 1, 99, 12_345, 99_999 })
        {
            Assert.Equal(Text(OrdersData.Order(n, 10_000, 1_000)), Text(OrdersData.Order(n, 10_000, 1_000)));
            Assert.Equal(JsonSerializer.Serialize(OrdersData.Customer(n), OrdersJson.Default.Customer), JsonSerializer.Serialize(OrdersData.Customer(n), OrdersJson.Default.Customer));
            Assert.Equal(JsonSerializer.Serialize(OrdersData.Product(n), OrdersJson.Default.Product), JsonSerializer.Serialize(OrdersData.Product(n), OrdersJson.Default.Product));
        }

        Assert.NotEqual(Text(OrdersData.Order(1, 10_000, 1_000)), Text(OrdersData.Order(2, 10_000, 1_000)));
    }

    [Fact]
    public void Order_times_are_distinct_fixed_width_and_spread_over_the_year_before_the_epoch()
    {
        var size = OrdersSize.Full;
        var times = Enumerable.Range(0, (int)size.Orders + 1_000).Select(n => OrdersData.Time(OrdersData.CreatedAt(n))).ToList();

        Assert.Equal(times.Count, times.Distinct(StringComparer.Ordinal).Count());
        Assert.All(times, t => Assert.Matches(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", t));
        var earliest = OrdersData.Time(OrdersData.Epoch.AddDays(-365));
        Assert.All(times, t => Assert.InRange(string.CompareOrdinal(t, earliest), 0, int.MaxValue));
        Assert.All(times, t => Assert.True(string.CompareOrdinal(t, OrdersData.Time(OrdersData.Epoch)) < 0));
        var lastMonth = times.Count(t => string.CompareOrdinal(t, OrdersData.Time(OrdersData.Epoch.AddDays(-30))) >= 0);
        Assert.InRange(lastMonth / (double)times.Count, 30 / 365.0 * 0.9, 30 / 365.0 * 1.1);
    }

    [Fact]
    public void Orders_are_half_to_one_KiB_of_JSON_and_refer_to_existing_customers_and_products()
    {
        var size = OrdersSize.Quick;
        var orders = OrdersData.Orders(size).ToList();

        var average = orders.Average(o => Text(o).Length);
        Assert.InRange(average, 512, 1024);
        Assert.All(orders, o =>
        {
            Assert.InRange(long.Parse(o.Customer["customers/".Length..], CultureInfo.InvariantCulture), 0, size.Customers - 1);
            Assert.All(o.Lines, l => Assert.InRange(long.Parse(l.Product["products/".Length..], CultureInfo.InvariantCulture), 0, size.Products - 1));
            Assert.Contains(o.Status, OrdersData.Statuses);
            Assert.Equal(Math.Round(o.Lines.Sum(l => l.Quantity * l.Price), 2), o.Total);
        });
        Assert.Equal(OrdersData.Statuses.Order(StringComparer.Ordinal), OrdersData.Statuses);
        Assert.Equal(OrdersData.Statuses.Length, orders.Select(o => o.Status).Distinct().Count());
    }
}
