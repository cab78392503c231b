namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>
/// The orders workload's data, the same for every path: customer, product and order n are built
/// from generators seeded with n, so any path, run or process gets the same object for the same n.
/// Order n belongs to a customer drawn from its generator, a quarter of them from the first tenth
/// of the customers (regulars), and has 3-10 lines of products at their catalogue price. Its
/// <see cref="Order.CreatedAt"/> is <c>Epoch - 365 days + (n * TimeStride mod 365 days)</c> in
/// milliseconds: spread evenly over the year before <see cref="Epoch"/>, and distinct for every n
/// below the year's milliseconds (the stride is prime and does not divide them), so no two orders
/// tie on time and every path orders a customer's orders the same way. Orders created during a run
/// use n at or beyond the preloaded count.
/// </summary>
internal static class OrdersData
{
    /// <summary>Fixed-width ISO 8601 UTC: text order is time order.</summary>
    public const string TimeFormat = "yyyy-MM-ddTHH:mm:ss.fffZ";

    public static readonly DateTime Epoch = new(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    /// <summary>The statuses in ordinal order (the report's row order).</summary>
    public static readonly string[] Statuses = ["cancelled", "delivered", "new", "paid", "shipped"];

    private const long YearMs = 365L * 24 * 60 * 60 * 1000; // 2^10 * 3^3 * 5^6 * 73
    private const long TimeStride = 2_654_435_761L;         // prime, so n -> n * stride mod YearMs is one-to-one

    private static readonly string[] FirstNames = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus", "Radia", "Tony", "Leslie", "John", "Sophie", "Guido"];
    private static readonly string[] LastNames = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Wirth", "Perlman", "Hoare", "Lamport", "Backus", "Wilson", "Lamarr"];
    private static readonly string[] Cities = ["Oslo", "Lima", "Pune", "Kyiv", "Berlin", "Osaka", "Recife", "Toronto", "Nairobi", "Perth", "Lyon", "Porto"];
    private static readonly string[] Words = ["harbor", "river", "garden", "mountain", "library", "kitchen", "bicycle", "coffee", "journal", "lantern", "meadow", "orchard"];
    private static readonly string[] Goods = ["kettle", "lamp", "notebook", "backpack", "headphones", "mug", "chair", "keyboard", "blanket", "bottle", "camera", "umbrella"];

    public static string CustomerId(long n) => "customers/" + n.ToString(CultureInfo.InvariantCulture);

    public static string ProductId(long n) => "products/" + n.ToString(CultureInfo.InvariantCulture);

    public static string OrderId(long n) => "orders/" + n.ToString(CultureInfo.InvariantCulture);

    /// <summary>A time as orders store it (<see cref="TimeFormat"/>).</summary>
    public static string Time(DateTime utc) => utc.ToString(TimeFormat, CultureInfo.InvariantCulture);

    /// <summary>The creation time of order <paramref name="n"/> (see the class comment).</summary>
    public static DateTime CreatedAt(long n) => Epoch.AddMilliseconds(-YearMs + (long)((Int128)(n % YearMs) * TimeStride % YearMs));

    public static Customer Customer(long n)
    {
        var random = Seeded(n, 1);
        var first = FirstNames[random.Next(FirstNames.Length)];
        var last = LastNames[random.Next(LastNames.Length)];
        return new Customer
        {
            Id = CustomerId(n),
            Name = $"{first} {last}",
            Email = string.Create(CultureInfo.InvariantCulture, $"{first.ToLowerInvariant()}.{last.ToLowerInvariant()}{n}@example.com"),
            City = Cities[random.Next(Cities.Length)],
        };
    }

    public static Product Product(long n)
    {
        var random = Seeded(n, 2);
        return new Product
        {
            Id = ProductId(n),
            Name = $"{Words[random.Next(Words.Length)]} {Goods[random.Next(Goods.Length)]}",
            Price = Math.Round(1 + (random.NextDouble() * 299), 2),
        };
    }

    /// <summary>Order <paramref name="n"/> of a store with <paramref name="customers"/> customers and <paramref name="products"/> products.</summary>
    public static Order Order(long n, long customers, long products)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(customers, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(products, 1);
        var random = Seeded(n, 3);
        var customer = random.Next(4) == 0 ? random.NextInt64(Math.Max(1, customers / 10)) : random.NextInt64(customers);
        var order = new Order
        {
            Id = OrderId(n),
            Customer = CustomerId(customer),
            CreatedAt = Time(CreatedAt(n)),
            Status = Statuses[random.Next(Statuses.Length)],
            ShipTo = new ShipTo
            {
                Street = string.Create(CultureInfo.InvariantCulture, $"{random.Next(1, 400)} {Words[random.Next(Words.Length)]} street"),
                City = Customer(customer).City,
                Zip = random.Next(10000, 99999).ToString(CultureInfo.InvariantCulture),
            },
        };
        for (var l = random.Next(3, 11); l > 0; l--)
        {
            var product = Product(random.NextInt64(products));
            order.Lines.Add(new OrderLine { Product = product.Id!, Quantity = random.Next(1, 5), Price = product.Price });
        }

        order.Total = Math.Round(order.Lines.Sum(line => line.Quantity * line.Price), 2);
        return order;
    }

    /// <summary>Customers, products and preloaded orders of <paramref name="size"/>, in id order.</summary>
    public static IEnumerable<Customer> Customers(OrdersSize size) => Range(size.Customers).Select(Customer);

    public static IEnumerable<Product> Products(OrdersSize size) => Range(size.Products).Select(Product);

    public static IEnumerable<Order> Orders(OrdersSize size) => Range(size.Orders).Select(n => Order(n, size.Customers, size.Products));

    private static IEnumerable<long> Range(long count)
    {
        for (long i = 0; i < count; i++)
        {
            yield return i;
        }
    }

    private static Random Seeded(long n, int kind) => new(unchecked((int)((n * 2_654_435_761L) ^ (kind * 0x5bd1e995L))));
}
