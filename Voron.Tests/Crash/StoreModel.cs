namespace Voron.Tests.Crash;

/// <summary>
/// The oracle of the crash tests: what the store must hold after recovery.
/// </summary>
/// <remarks>
/// It keeps a base state (as of transaction <see cref="BaseTransactionId"/>, verified or empty)
/// and every transaction attempted since, by id, with its changes — acknowledged (Commit
/// returned, or every operation of a merged transaction completed) or not. After a crash and
/// recovery to transaction R, the store must:
/// <list type="number">
/// <item>O1: lose nothing acknowledged: R &gt;= the last acknowledged transaction;</item>
/// <item>O2: invent nothing: R is the last acknowledged one, or the one attempted right after it
///   (the single transaction that can be in flight when the power fails);</item>
/// <item>O3: show no partial transaction and no hole: its contents equal the base state with
///   every transaction up to R applied, in order — exactly;</item>
/// <item>O4: pass CheckIntegrity and accept a new write (<see cref="CrashVerifier"/>).</item>
/// </list>
/// Thread-safe: merged operations record themselves from the merger's threads.
/// </remarks>
internal sealed class StoreModel
{
    private readonly object _lock = new();
    private readonly SortedDictionary<long, List<Change>> _attempted = [];
    private ModelState _base = new();
    private long _lastAcknowledged;

    public long BaseTransactionId { get; private set; }

    public long LastAcknowledged
    {
        get
        {
            lock (_lock)
            {
                return _lastAcknowledged;
            }
        }
    }

    /// <summary>The highest transaction id attempted (or the base when none was).</summary>
    public long LastAttempted
    {
        get
        {
            lock (_lock)
            {
                return _attempted.Count == 0 ? BaseTransactionId : _attempted.Keys.Max();
            }
        }
    }

    /// <summary>Transaction <paramref name="transactionId"/> is about to commit with these changes
    /// (called again for each merged operation that joins it).</summary>
    public void Attempt(long transactionId, IEnumerable<Change> changes)
    {
        lock (_lock)
        {
            if (!_attempted.TryGetValue(transactionId, out var list))
            {
                list = [];
                _attempted[transactionId] = list;
            }

            list.AddRange(changes);
        }
    }

    /// <summary>Transaction <paramref name="transactionId"/> was acknowledged as durable.</summary>
    public void Acknowledge(long transactionId)
    {
        lock (_lock)
        {
            if (!_attempted.ContainsKey(transactionId))
            {
                throw new InvalidOperationException($"Transaction {transactionId} was acknowledged but never attempted.");
            }

            _lastAcknowledged = Math.Max(_lastAcknowledged, transactionId);
        }
    }

    /// <summary>The state after every transaction up to <paramref name="transactionId"/>.</summary>
    public ModelState StateAt(long transactionId)
    {
        lock (_lock)
        {
            var state = _base.Clone();
            foreach (var (id, changes) in _attempted)
            {
                if (id > transactionId)
                {
                    break;
                }

                foreach (var change in changes)
                {
                    change.ApplyTo(state);
                }
            }

            return state;
        }
    }

    /// <summary>Why recovering to <paramref name="recovered"/> breaks O1 or O2, or null when it does not.</summary>
    public string? CheckRecoveredId(long recovered)
    {
        lock (_lock)
        {
            if (recovered < _lastAcknowledged)
            {
                return $"O1: recovered to transaction {recovered}, but transaction {_lastAcknowledged} was acknowledged";
            }

            if (recovered > _lastAcknowledged && (recovered != _lastAcknowledged + 1 || !_attempted.ContainsKey(recovered)))
            {
                return $"O2: recovered to transaction {recovered}; only {_lastAcknowledged} was acknowledged and " +
                       $"[{string.Join(", ", _attempted.Keys.Where(k => k > _lastAcknowledged))}] attempted after it";
            }

            return null;
        }
    }

    /// <summary>After a verified recovery to <paramref name="transactionId"/>: that state becomes the base, later attempts are forgotten.</summary>
    public void Rebase(long transactionId)
    {
        lock (_lock)
        {
            _base = StateAt(transactionId);
            BaseTransactionId = transactionId;
            _lastAcknowledged = transactionId;
            _attempted.Clear();
        }
    }

    /// <summary>A model whose base is <paramref name="state"/> as of transaction <paramref name="transactionId"/>.</summary>
    public static StoreModel StartingAt(ModelState state, long transactionId) =>
        new() { _base = state.Clone(), BaseTransactionId = transactionId, _lastAcknowledged = transactionId };

    public StoreModel Clone()
    {
        lock (_lock)
        {
            var copy = new StoreModel { _base = _base.Clone(), BaseTransactionId = BaseTransactionId, _lastAcknowledged = _lastAcknowledged };
            foreach (var (id, changes) in _attempted)
            {
                copy._attempted[id] = [.. changes];
            }

            return copy;
        }
    }
}
