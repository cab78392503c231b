namespace Voron.Tests.Core.Compression;

/// <summary>
/// Inputs of the shapes a journal payload has: JSON documents, sparse 8 KiB pages, runs, random
/// bytes. Every generator is driven by the caller's <see cref="Random"/>, so a seed replays it.
/// </summary>
internal static class Lz4TestData
{
    private static readonly string[] Words =
    [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
        "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
        "storage", "journal", "page", "tree", "branch", "leaf", "commit", "flush", "recovery", "index",
    ];

    private static readonly string[] Cities = ["Haifa", "Lisbon", "Toronto", "Osaka", "Nairobi", "Quito", "Tallinn", "Perth"];

    private static readonly string[] Statuses = ["active", "pending", "suspended", "closed"];

    /// <summary>
    /// A JSON array of order documents with the same field names, nested objects, numbers, dates
    /// and free text, about <paramref name="approximateLength"/> bytes long (ASCII).
    /// </summary>
    public static byte[] Json(Random random, int approximateLength)
    {
        var text = new StringBuilder(approximateLength + 512);
        text.Append('[');
        var id = random.Next(1, 1_000_000);
        while (text.Length < approximateLength)
        {
            if (text.Length > 1)
            {
                text.Append(",\n");
            }

            id += random.Next(1, 20);
            var name = Pick(random, Words) + " " + Pick(random, Words);
            text.Append("{\"id\":").Append(id)
                .Append(",\"customer\":{\"name\":\"").Append(name)
                .Append("\",\"email\":\"").Append(name.Replace(' ', '.')).Append(random.Next(100)).Append("@example.com\"")
                .Append(",\"address\":{\"city\":\"").Append(Pick(random, Cities))
                .Append("\",\"street\":\"").Append(random.Next(1, 300)).Append(' ').Append(Pick(random, Words)).Append(" street\"")
                .Append(",\"zip\":\"").Append(random.Next(10000, 99999)).Append("\"}}")
                .Append(",\"status\":\"").Append(Pick(random, Statuses))
                .Append("\",\"createdAt\":\"2024-").Append(random.Next(1, 13).ToString("D2"))
                .Append('-').Append(random.Next(1, 29).ToString("D2"))
                .Append('T').Append(random.Next(24).ToString("D2")).Append(':').Append(random.Next(60).ToString("D2"))
                .Append(':').Append(random.Next(60).ToString("D2")).Append("Z\"")
                .Append(",\"total\":").Append(random.Next(100, 100_000) / 100.0)
                .Append(",\"paid\":").Append(random.Next(2) == 0 ? "true" : "false")
                .Append(",\"lines\":[");
            var lines = random.Next(1, 4);
            for (var i = 0; i < lines; i++)
            {
                if (i > 0)
                {
                    text.Append(',');
                }

                text.Append("{\"sku\":\"SKU-").Append(random.Next(1000, 9999))
                    .Append("\",\"quantity\":").Append(random.Next(1, 10))
                    .Append(",\"price\":").Append(random.Next(100, 10_000) / 100.0).Append('}');
            }

            text.Append("],\"tags\":[\"").Append(Pick(random, Words)).Append("\",\"").Append(Pick(random, Words))
                .Append("\"],\"note\":\"");
            var noteWords = random.Next(0, 12);
            for (var i = 0; i < noteWords; i++)
            {
                text.Append(i == 0 ? "" : " ").Append(Pick(random, Words));
            }

            text.Append("\"}");
        }

        text.Append(']');
        return Encoding.ASCII.GetBytes(text.ToString());
    }

    /// <summary>An 8 KiB page: mostly zeros, a header, and a few short records scattered in it.</summary>
    public static byte[] SparsePage(Random random)
    {
        var page = new byte[8192];
        random.NextBytes(page.AsSpan(0, 64));
        var records = random.Next(0, 12);
        for (var i = 0; i < records; i++)
        {
            var length = random.Next(1, 200);
            var at = random.Next(64, page.Length - length);
            random.NextBytes(page.AsSpan(at, length));
        }

        return page;
    }

    /// <summary>A pattern of <paramref name="period"/> random bytes repeated to <paramref name="length"/> bytes.</summary>
    public static byte[] Run(Random random, int period, int length)
    {
        var pattern = new byte[period];
        random.NextBytes(pattern);
        var data = new byte[length];
        for (var i = 0; i < length; i++)
        {
            data[i] = pattern[i % period];
        }

        return data;
    }

    public static byte[] RandomBytes(Random random, int length)
    {
        var data = new byte[length];
        random.NextBytes(data);
        return data;
    }

    /// <summary>One input of a randomly chosen shape and size, for randomized round trips.</summary>
    public static byte[] AnyShape(Random random)
    {
        switch (random.Next(8))
        {
            case 0:
                return RandomBytes(random, random.Next(0, 40));
            case 1:
                return RandomBytes(random, random.Next(0, 5000));
            case 2:
                return Json(random, random.Next(1, 20_000));
            case 3:
                return SparsePage(random);
            case 4:
                return Run(random, random.Next(1, 12), random.Next(0, 3000));
            case 5:
                return new byte[random.Next(0, 70_000)];
            case 6:
                return Mixed(random, random.Next(0, 100_000));
            default:
                // Matches further back than the 64 KiB window, and literal runs longer than 255.
                var json = Json(random, random.Next(20_000, 40_000));
                var noise = RandomBytes(random, random.Next(60_000, 70_000));
                return [.. json, .. noise, .. json];
        }
    }

    /// <summary>Pieces of every shape glued together, so matches, runs and literals interleave.</summary>
    public static byte[] Mixed(Random random, int length)
    {
        var data = new List<byte>(length + 8192);
        while (data.Count < length)
        {
            switch (random.Next(4))
            {
                case 0:
                    data.AddRange(RandomBytes(random, random.Next(1, 300)));
                    break;
                case 1:
                    data.AddRange(Run(random, random.Next(1, 9), random.Next(1, 600)));
                    break;
                case 2:
                    data.AddRange(Json(random, random.Next(1, 2000)));
                    break;
                default:
                    // Repeat an earlier piece of the output at some distance.
                    if (data.Count > 0)
                    {
                        var start = random.Next(data.Count);
                        var count = Math.Min(random.Next(1, 400), data.Count - start);
                        data.AddRange(data.GetRange(start, count));
                    }

                    break;
            }
        }

        return [.. data.GetRange(0, length)];
    }

    private static string Pick(Random random, string[] values) => values[random.Next(values.Length)];
}
