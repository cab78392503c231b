namespace Voron.Tests.Documents.Crash;

/// <summary>
/// The oracle of the document crash tests, per caller (a caller saves its sessions one after the
/// other; callers own disjoint ids). Each attempted session is a set of changes (id -> JSON, or
/// null for a delete). After a crash and recovery, a caller's documents must equal its state
/// after k sessions, where k is at least the sessions acknowledged (nothing acknowledged is lost)
/// and at most one more, if one was attempted and not acknowledged (the one in flight), whole
/// (nothing partial). Sessions refused on purpose (a conflict, a unique violation) are never
/// attempted: nothing of them may show.
/// </summary>
internal sealed class DocumentCrashModel
{
    private readonly object _lock = new();
    private readonly Dictionary<int, List<Dictionary<string, string?>>> _sessions = [];
    private readonly Dictionary<int, int> _acknowledged = [];

    public IEnumerable<int> Callers
    {
        get
        {
            lock (_lock)
            {
                return [.. _sessions.Keys];
            }
        }
    }

    /// <summary>Records an attempted session (SaveChangesAsync about to be called); returns its number.</summary>
    public int Attempt(int caller, Dictionary<string, string?> changes)
    {
        lock (_lock)
        {
            if (!_sessions.TryGetValue(caller, out var list))
            {
                list = [];
                _sessions[caller] = list;
            }

            list.Add(changes);
            return list.Count;
        }
    }

    /// <summary>A session refused on purpose: it was never in flight.</summary>
    public void Withdraw(int caller)
    {
        lock (_lock)
        {
            _sessions[caller].RemoveAt(_sessions[caller].Count - 1);
        }
    }

    public void Acknowledge(int caller, int session)
    {
        lock (_lock)
        {
            _acknowledged[caller] = Math.Max(_acknowledged.GetValueOrDefault(caller), session);
        }
    }

    /// <summary>The states a caller's documents may be in after recovery: after k sessions, k from acknowledged to attempted (at most one more).</summary>
    public List<(int Sessions, Dictionary<string, string?> State)> Candidates(int caller)
    {
        lock (_lock)
        {
            var sessions = _sessions[caller];
            var acknowledged = _acknowledged.GetValueOrDefault(caller);
            var state = new Dictionary<string, string?>(StringComparer.Ordinal);
            foreach (var id in sessions.SelectMany(s => s.Keys))
            {
                state[id] = null;
            }

            var candidates = new List<(int, Dictionary<string, string?>)>();
            for (var k = 0; k <= sessions.Count && k <= acknowledged + 1; k++)
            {
                if (k > 0)
                {
                    foreach (var (id, json) in sessions[k - 1])
                    {
                        state[id] = json;
                    }
                }

                if (k >= acknowledged)
                {
                    candidates.Add((k, new Dictionary<string, string?>(state, StringComparer.Ordinal)));
                }
            }

            return candidates;
        }
    }
}
