using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Voron.LoadTests.Data;

/// <summary>
/// JSON documents that look like an application's: users, orders and events with nested objects,
/// arrays of varied length, optional fields, names and prose from large made-up vocabularies
/// (<see cref="Vocabulary"/>, Zipf-distributed like real words), identifiers, hashes and
/// coordinates with the entropy real ones have, and timestamps spread over years. Sizes are drawn
/// uniformly from a range (history entries, order lines or attributes are added until the
/// document reaches its size). Deterministic for a seed. Names, cities and tags are many and no
/// field is constant, since a few repeated values flatter compression: these compress about as
/// much as real documents (docs/results/2026-12-06-code-comment-measurements.md).
/// </summary>
internal sealed class RealisticJson
{
    private static readonly string[] Statuses = ["active", "pending", "suspended", "closed", "archived", "trial"];
    private static readonly string[] Countries = ["US", "GB", "DE", "FR", "IL", "JP", "IN", "BR", "NG", "AU", "CA", "ES", "IT", "NL", "SE", "PL", "MX", "KR", "ZA", "AR"];
    private static readonly string[] Currencies = ["USD", "EUR", "GBP", "ILS", "JPY", "INR", "BRL", "AUD", "CAD", "SEK"];
    private static readonly string[] Languages = ["en", "de", "fr", "he", "ja", "hi", "pt", "es", "it", "nl", "sv", "pl"];
    private static readonly string[] Streets = ["Street", "Avenue", "Road", "Lane", "Way", "Boulevard", "Court", "Place", "Drive", "Terrace"];
    private static readonly string[] Levels = ["debug", "info", "info", "info", "warn", "error"];
    private static readonly string[] Kinds = ["user", "order", "event"];

    private readonly Vocabulary _words;
    private readonly Vocabulary _names;
    private readonly Vocabulary _places;
    private readonly Random _random;
    private long _sequence;

    public RealisticJson(int seed)
    {
        _random = new Random(seed);
        _words = new Vocabulary(seed + 1, 6000, 0.95);
        _names = new Vocabulary(seed + 2, 3000, 0.6);
        _places = new Vocabulary(seed + 3, 1500, 0.7);
    }

    /// <summary>A new document of about <paramref name="minBytes"/> to <paramref name="maxBytes"/> bytes (UTF-8).</summary>
    public byte[] Next(int minBytes, int maxBytes)
    {
        var target = _random.Next(minBytes, maxBytes + 1);
        var kind = Kinds[_random.Next(Kinds.Length)];
        var id = $"{kind}s/{++_sequence:D}-{Hex(4)}";
        var document = kind switch
        {
            "user" => User(id),
            "order" => Order(id),
            _ => Event(id),
        };
        var (arrayName, entry) = kind switch
        {
            "user" => ("history", (Func<JsonObject>)HistoryEntry),
            "order" => ("lines", OrderLine),
            _ => ("spans", Span),
        };
        var array = new JsonArray();
        document[arrayName] = array;
        var size = Size(document);
        while (true)
        {
            var next = entry();
            var grown = size + Size(next) + 1;
            if (grown > target && array.Count > 0)
            {
                break;
            }

            array.Add(next);
            size = grown;
            if (size >= target)
            {
                break;
            }
        }

        return JsonSerializer.SerializeToUtf8Bytes(document);
    }

    /// <summary>
    /// The document after a typical update: a new <c>updatedAt</c> and <c>version</c>, often a new
    /// status or counter, and a third of the time one more history entry (the oldest dropped when
    /// that would pass <paramref name="maxBytes"/>), so an update changes a few bytes in place or
    /// shifts the document's tail.
    /// </summary>
    public byte[] Update(byte[] document, int maxBytes)
    {
        var node = JsonNode.Parse(document)!.AsObject();
        node["updatedAt"] = Timestamp();
        node["version"] = (node["version"]?.GetValue<int>() ?? 0) + 1;
        if (_random.Next(2) == 0)
        {
            node["status"] = Statuses[_random.Next(Statuses.Length)];
        }

        if (node["loginCount"] is JsonNode count)
        {
            node["loginCount"] = count.GetValue<int>() + 1 + _random.Next(3);
        }

        var array = node.FirstOrDefault(p => p.Value is JsonArray && p.Key is "history" or "lines" or "spans").Value as JsonArray;
        if (array != null && _random.Next(3) == 0)
        {
            array.Add(node.ContainsKey("history") ? HistoryEntry() : node.ContainsKey("lines") ? OrderLine() : Span());
            while (array.Count > 1 && Size(node) > maxBytes)
            {
                array.RemoveAt(0);
            }
        }

        return JsonSerializer.SerializeToUtf8Bytes(node);
    }

    private JsonObject User(string id)
    {
        var first = _names.NextCapitalized(_random);
        var last = _names.NextCapitalized(_random) + (_random.Next(4) == 0 ? "-" + _names.NextCapitalized(_random) : "");
        var user = new JsonObject
        {
            ["id"] = id,
            ["createdAt"] = Timestamp(),
            ["updatedAt"] = Timestamp(),
            ["version"] = _random.Next(1, 40),
            ["status"] = Statuses[_random.Next(Statuses.Length)],
            ["name"] = new JsonObject { ["first"] = first, ["last"] = last },
            ["email"] = $"{first.ToLowerInvariant()}.{last.ToLowerInvariant()}{(_random.Next(3) == 0 ? _random.Next(100).ToString(CultureInfo.InvariantCulture) : "")}@{_places.Next(_random)}.{(_random.Next(3) == 0 ? "io" : "com")}",
            ["address"] = Address(),
            ["loginCount"] = _random.Next(0, 5000),
            ["geo"] = new JsonObject { ["lat"] = Math.Round(_random.NextDouble() * 180 - 90, 6), ["lon"] = Math.Round(_random.NextDouble() * 360 - 180, 6) },
            ["preferences"] = new JsonObject
            {
                ["language"] = Languages[_random.Next(Languages.Length)],
                ["newsletter"] = _random.Next(2) == 0,
                ["theme"] = _random.Next(3) == 0 ? "dark" : "light",
            },
            ["tags"] = Words(_random.Next(0, 7)),
        };
        if (_random.Next(2) == 0)
        {
            user["phone"] = $"+{_random.Next(1, 99)} {_random.Next(100, 999)} {_random.Next(1000, 9999)} {_random.Next(100, 9999)}";
        }

        if (_random.Next(3) > 0)
        {
            user["bio"] = Sentence(5, 40);
        }

        if (_random.Next(3) == 0)
        {
            user["company"] = new JsonObject { ["name"] = $"{_places.NextCapitalized(_random)} {_words.NextCapitalized(_random)}", ["role"] = _words.Next(_random) };
        }

        return user;
    }

    private JsonObject Order(string id) => new()
    {
        ["id"] = id,
        ["createdAt"] = Timestamp(),
        ["updatedAt"] = Timestamp(),
        ["version"] = _random.Next(1, 10),
        ["status"] = Statuses[_random.Next(Statuses.Length)],
        ["customer"] = $"users/{_random.Next(1, 2_000_000)}-{Hex(4)}",
        ["currency"] = Currencies[_random.Next(Currencies.Length)],
        ["total"] = Math.Round(_random.NextDouble() * 2000, 2),
        ["shipTo"] = Address(),
        ["payment"] = new JsonObject
        {
            ["method"] = _random.Next(3) == 0 ? "transfer" : "card",
            ["last4"] = _random.Next(10000).ToString("D4", CultureInfo.InvariantCulture),
            ["authorization"] = Hex(16),
        },
        ["notes"] = _random.Next(3) == 0 ? Sentence(3, 25) : null,
    };

    private JsonObject Event(string id)
    {
        var attributes = new JsonObject();
        for (var i = _random.Next(1, 8); i > 0; i--)
        {
            attributes[_words.Next(_random) + "." + _words.Next(_random)] = _random.Next(3) switch
            {
                0 => (JsonNode)_random.Next(-1000, 100000),
                1 => _words.Next(_random),
                _ => Math.Round(_random.NextDouble() * 1000, 3),
            };
        }

        return new JsonObject
        {
            ["id"] = id,
            ["createdAt"] = Timestamp(),
            ["updatedAt"] = Timestamp(),
            ["version"] = 1,
            ["status"] = Statuses[_random.Next(Statuses.Length)],
            ["level"] = Levels[_random.Next(Levels.Length)],
            ["source"] = $"{_words.Next(_random)}-{_words.Next(_random)}-{_random.Next(1, 40)}",
            ["message"] = Sentence(4, 30),
            ["traceId"] = Hex(16),
            ["durationMs"] = Math.Round(_random.NextDouble() * _random.Next(1, 3000), 3),
            ["attributes"] = attributes,
        };
    }

    private JsonObject HistoryEntry()
    {
        var entry = new JsonObject
        {
            ["at"] = Timestamp(),
            ["action"] = _words.Next(_random),
            ["ip"] = $"{_random.Next(1, 255)}.{_random.Next(256)}.{_random.Next(256)}.{_random.Next(1, 255)}",
            ["device"] = $"{_words.NextCapitalized(_random)} {_random.Next(1, 20)}.{_random.Next(10)}",
        };
        if (_random.Next(3) == 0)
        {
            entry["note"] = Sentence(3, 18);
        }

        return entry;
    }

    private JsonObject OrderLine() => new JsonObject
    {
        ["sku"] = $"{_words.Next(_random).ToUpperInvariant()}-{_random.Next(100000):D5}",
        ["name"] = $"{_words.NextCapitalized(_random)} {_words.Next(_random)} {_words.Next(_random)}",
        ["quantity"] = _random.Next(1, 12),
        ["unitPrice"] = Math.Round(_random.NextDouble() * 300, 2),
        ["discount"] = _random.Next(4) == 0 ? Math.Round(_random.NextDouble() * 0.3, 2) : 0,
    };

    private JsonObject Span() => new JsonObject
    {
        ["spanId"] = Hex(8),
        ["name"] = $"{_words.Next(_random)}.{_words.Next(_random)}",
        ["startMs"] = _random.Next(0, 100000),
        ["durationMs"] = Math.Round(_random.NextDouble() * 500, 3),
        ["ok"] = _random.Next(10) > 0,
    };

    private JsonObject Address() => new()
    {
        ["street"] = $"{_random.Next(1, 2000)} {_places.NextCapitalized(_random)} {Streets[_random.Next(Streets.Length)]}",
        ["city"] = _places.NextCapitalized(_random),
        ["postalCode"] = _random.Next(1000, 99999).ToString(CultureInfo.InvariantCulture),
        ["country"] = Countries[_random.Next(Countries.Length)],
    };

    private JsonArray Words(int count) => [.. Enumerable.Range(0, count).Select(_ => (JsonNode)_words.Next(_random))];

    private string Sentence(int minWords, int maxWords)
    {
        var text = new StringBuilder(_words.NextCapitalized(_random));
        for (var i = _random.Next(minWords, maxWords + 1) - 1; i > 0; i--)
        {
            text.Append(_random.Next(12) == 0 ? ", " : " ").Append(_words.Next(_random));
        }

        return text.Append('.').ToString();
    }

    private string Timestamp() =>
        new DateTime(2019, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddSeconds(_random.NextInt64(7L * 365 * 86400)).AddMilliseconds(_random.Next(1000))
            .ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);

    private string Hex(int bytes)
    {
        var buffer = new byte[bytes];
        _random.NextBytes(buffer);
        return Convert.ToHexStringLower(buffer);
    }

    private static int Size(JsonNode node) => Encoding.UTF8.GetByteCount(node.ToJsonString());
}
