using System.Text;

namespace Voron.LoadTests.Experiments.Documents;

/// <summary>
/// Varied ~1 KiB profiles, the same for every engine: document i is built from a generator seeded
/// with i, so any engine, run or process gets the same document for the same i. Values are drawn
/// from word lists and distributions (names, cities, tags, orders, free text), not copied from a
/// template, so neither the engines' compression nor their page layout sees a repeated document.
/// </summary>
internal static class ProfileDataSet
{
    public const int CityCount = 200;

    private static readonly string[] FirstNames = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus", "Radia", "Tony", "Leslie", "John", "Sophie", "Yukihiro", "Guido", "Anders", "Bjarne", "Hedy"];
    private static readonly string[] LastNames = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Wirth", "Perlman", "Hoare", "Lamport", "Backus", "Wilson", "Matsumoto", "van Rossum", "Hejlsberg", "Stroustrup", "Lamarr"];
    private static readonly string[] Countries = ["NO", "PE", "IN", "UA", "DE", "JP", "BR", "CA", "KE", "AU"];
    private static readonly string[] TagWords = ["premium", "beta", "newsletter", "mobile", "desktop", "vip", "churn-risk", "referral", "b2b", "trial", "annual", "monthly", "eu", "apac", "support", "early-adopter"];
    private static readonly string[] Words = ["storage", "engine", "journal", "page", "tree", "commit", "latency", "replica", "cache", "query", "index", "durable", "snapshot", "merge", "flush", "record", "session", "document", "version", "network", "garden", "river", "mountain", "coffee", "music", "travel", "kitchen", "bicycle", "library", "harbor"];
    private static readonly string[] Statuses = ["placed", "paid", "shipped", "delivered", "returned"];

    /// <summary>The cities documents live in (queried by equality): CityCount of them.</summary>
    public static string City(int n) => "city-" + n.ToString("D3", CultureInfo.InvariantCulture);

    public static string Id(long i) => "profiles/" + i.ToString(CultureInfo.InvariantCulture);

    /// <summary>Document <paramref name="i"/>, with id <see cref="Id"/>.</summary>
    public static Profile Create(long i)
    {
        var random = new Random(unchecked((int)(i * 2_654_435_761L)));
        var first = FirstNames[random.Next(FirstNames.Length)];
        var last = LastNames[random.Next(LastNames.Length)];
        var city = City(random.Next(CityCount));
        var profile = new Profile
        {
            Id = Id(i),
            Name = $"{first} {last}",
            Email = $"{first.ToLowerInvariant()}.{last.Replace(" ", "", StringComparison.Ordinal).ToLowerInvariant()}{i}@example.com",
            Age = 18 + random.Next(72),
            City = city,
            Active = random.Next(5) != 0,
            Score = Math.Round(random.NextDouble() * 1000, 2),
            CreatedUnix = 1_500_000_000 + random.Next(250_000_000),
            Tags = [.. Enumerable.Range(0, random.Next(1, 6)).Select(_ => TagWords[random.Next(TagWords.Length)]).Distinct()],
            Address = new ProfileAddress
            {
                Street = $"{random.Next(1, 400)} {Words[random.Next(Words.Length)]} street",
                City = city,
                Zip = random.Next(10000, 99999).ToString(CultureInfo.InvariantCulture),
                Country = Countries[random.Next(Countries.Length)],
                Latitude = Math.Round((random.NextDouble() * 180) - 90, 5),
                Longitude = Math.Round((random.NextDouble() * 360) - 180, 5),
            },
            Bio = Sentence(random, 18 + random.Next(30)),
        };
        for (var o = random.Next(1, 5); o > 0; o--)
        {
            profile.RecentOrders.Add(new ProfileOrder
            {
                Sku = $"SKU-{random.Next(100000):D5}",
                Quantity = random.Next(1, 10),
                Price = Math.Round(random.NextDouble() * 500, 2),
                Status = Statuses[random.Next(Statuses.Length)],
                PlacedUnix = 1_600_000_000 + random.Next(150_000_000),
            });
        }

        for (var s = random.Next(1, 5); s > 0; s--)
        {
            profile.Settings.Add(new ProfileSetting { Key = Words[random.Next(Words.Length)], Value = random.Next(3) == 0 ? "on" : Words[random.Next(Words.Length)] });
        }

        return profile;
    }

    /// <summary>A change an update makes: a new score, a tag, an order status (deterministic for <paramref name="seed"/>).</summary>
    public static void Change(Profile profile, int seed)
    {
        var random = new Random(seed);
        profile.Score = Math.Round(random.NextDouble() * 1000, 2);
        profile.Active = random.Next(2) == 0;
        if (profile.RecentOrders.Count > 0)
        {
            profile.RecentOrders[random.Next(profile.RecentOrders.Count)].Status = Statuses[random.Next(Statuses.Length)];
        }
    }

    private static string Sentence(Random random, int words)
    {
        var text = new StringBuilder();
        for (var w = 0; w < words; w++)
        {
            text.Append(w == 0 ? "" : " ").Append(Words[random.Next(Words.Length)]);
        }

        return text.Append('.').ToString();
    }
}
