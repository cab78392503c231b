namespace Voron.Diagnostics.Experiments.Http;

/// <summary>
/// The keys of the products one backend's POST runs created (from each 201's Location header), so
/// that the GET runs ask only for products that exist: a 404 is then a wrong answer, never a
/// guess that missed. Thread-safe: every copy of a POST run adds, every copy of a GET run picks.
/// </summary>
internal sealed class CreatedProducts
{
    private readonly List<string> _keys = [];

    public int Count
    {
        get
        {
            lock (_keys)
            {
                return _keys.Count;
            }
        }
    }

    public void Add(string key)
    {
        lock (_keys)
        {
            _keys.Add(key);
        }
    }

    /// <summary>A created key chosen with <paramref name="random"/>; throws when nothing was created yet.</summary>
    public string Pick(Random random)
    {
        lock (_keys)
        {
            return _keys.Count > 0
                ? _keys[random.Next(_keys.Count)]
                : throw new InvalidOperationException("No product was created yet: the POST runs come before the GET runs.");
        }
    }
}
