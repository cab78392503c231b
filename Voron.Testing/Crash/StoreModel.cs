namespace Voron.Testing.Crash;

/// <summary>
/// The oracle of the crash tests: what the store must hold after recovery.
/// </summary>
/// <remarks>
/// It keeps a base state (as of transaction <see cref="BaseTransactionId"/>) and every
/// transaction attempted since, by id, with its changes — acknowledged (Commit returned, or the
/// operations of a merged transaction completed) or not. An id can have more than one attempt
/// when the store failed: an explicit transaction and a merged batch that both started from the
/// last committed state and both failed; at most one of them reached the journal. After a crash
/// and recovery to transaction R, the store must:
/// <list type="number">
/// <item>O1. lose nothing acknowledged: R &gt;= the last acknowledged transaction;</item>
/// <item>O2. invent nothing: R is the last acknowledged one, or the one attempted right after it
///   (the single transaction that can be in flight when the power fails);</item>
/// <item>O3. show no partial transaction and no hole: its contents equal the base state with
///   every transaction up to R applied in order — for R itself, one of its attempts — exactly;</item>
/// <item>O4. pass CheckIntegrity and accept a new write (<see cref="CrashVerifier"/>).</item>
/// </list>
/// In <see cref="DurabilityMode.Lazy"/> mode (<see cref="Lazy"/>) an acknowledgement does not
/// promise durability, so O1 weakens to "R &gt;= the last transaction known durable" (flushed to
/// the data file, or closed cleanly: <see cref="MarkDurable"/>); O2 and O3 are unchanged — a
/// power loss may take the newest commits, whole, never an older one alone.
/// Thread-safe: merged operations are recorded from the merger's threads.
/// </remarks>
internal sealed class StoreModel
{
    private readonly object _lock = new();
    private readonly SortedDictionary<long, List<TransactionAttempt>> _attempted = [];
    private ModelState _base = new();
    private long _lastAcknowledged;

    public long BaseTransactionId { get; private set; }

    /// <summary>Whether the store runs in lazy durability mode (see the remarks).</summary>
    public bool Lazy { get; init; }

    private long _durableFloor;

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

    /// <summary>A model whose base is <paramref name="state"/> as of transaction <paramref name="transactionId"/>.</summary>
    public static StoreModel StartingAt(ModelState state, long transactionId) =>
        new() { _base = state.Clone(), BaseTransactionId = transactionId, _lastAcknowledged = transactionId };

    /// <summary>
    /// Transaction <paramref name="transactionId"/> is about to commit with these changes.
    /// <paramref name="attempt"/> identifies the transaction object: the operations of one merged
    /// batch pass the same one, and their changes add up.
    /// </summary>
    public void Attempt(long transactionId, object attempt, IEnumerable<Change> changes)
    {
        lock (_lock)
        {
            if (!_attempted.TryGetValue(transactionId, out var list))
            {
                list = [];
                _attempted[transactionId] = list;
            }

            var existing = list.Find(a => ReferenceEquals(a.Identity, attempt));
            if (existing == null)
            {
                existing = new TransactionAttempt(attempt);
                list.Add(existing);
            }

            existing.Changes.AddRange(changes);
        }
    }

    /// <summary>The attempt <paramref name="attempt"/> of transaction <paramref name="transactionId"/> was acknowledged as durable.</summary>
    public void Acknowledge(long transactionId, object attempt)
    {
        lock (_lock)
        {
            var attempts = _attempted.GetValueOrDefault(transactionId);
            var found = attempts?.Find(a => ReferenceEquals(a.Identity, attempt))
                ?? throw new InvalidOperationException($"Transaction {transactionId} was acknowledged but never attempted.");
            if (attempts!.Exists(a => a.Acknowledged && a != found))
            {
                // A transaction that changes nothing commits nothing and uses no id: the next one
                // has the same id. Scenarios must not submit such transactions (Withdraw explicit ones).
                throw new InvalidOperationException($"Two different transactions were acknowledged as transaction {transactionId}; one of them changed nothing.");
            }

            found.Acknowledged = true;
            _lastAcknowledged = Math.Max(_lastAcknowledged, transactionId);
        }
    }

    /// <summary>Every transaction up to <paramref name="transactionId"/> is durable for sure (the data file holds it).</summary>
    public void MarkDurable(long transactionId)
    {
        lock (_lock)
        {
            _durableFloor = Math.Max(_durableFloor, transactionId);
        }
    }

    /// <summary>Forgets an attempt that committed nothing (it changed no page, so it used no transaction id).</summary>
    public void Withdraw(long transactionId, object attempt)
    {
        lock (_lock)
        {
            var attempts = _attempted[transactionId];
            attempts.RemoveAll(a => ReferenceEquals(a.Identity, attempt));
            if (attempts.Count == 0)
            {
                _attempted.Remove(transactionId);
            }
        }
    }

    /// <summary>
    /// The states the store may be in at <paramref name="transactionId"/>: every earlier
    /// transaction applied as acknowledged, and each attempt of the last one.
    /// </summary>
    public IReadOnlyList<ModelState> StatesAt(long transactionId)
    {
        lock (_lock)
        {
            var state = _base.Clone();
            foreach (var (id, attempts) in _attempted)
            {
                if (id >= transactionId)
                {
                    break;
                }

                var chosen = attempts.Find(a => a.Acknowledged) ?? attempts[0];
                chosen.ApplyTo(state);
            }

            if (!_attempted.TryGetValue(transactionId, out var last))
            {
                return [state];
            }

            var acknowledged = last.Find(a => a.Acknowledged);
            return [.. (acknowledged != null ? [acknowledged] : last).Select(a =>
            {
                var candidate = state.Clone();
                a.ApplyTo(candidate);
                return candidate;
            })];
        }
    }

    /// <summary>The state after every acknowledged transaction.</summary>
    public ModelState AcknowledgedState() => StatesAt(LastAcknowledged)[0];

    /// <summary>Why recovering to <paramref name="recovered"/> breaks O1 or O2, or null when it does not.</summary>
    public string? CheckRecoveredId(long recovered)
    {
        lock (_lock)
        {
            if (Lazy)
            {
                var floor = Math.Max(_durableFloor, BaseTransactionId);
                if (recovered < floor)
                {
                    return $"O1 (lazy): recovered to transaction {recovered}, but transaction {floor} was flushed to the data file";
                }

                if (recovered <= _lastAcknowledged && recovered > BaseTransactionId && !_attempted.ContainsKey(recovered))
                {
                    return $"O2 (lazy): recovered to transaction {recovered}, which was never attempted";
                }
            }
            else if (recovered < _lastAcknowledged)
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

    /// <summary>Every attempt since the base, one line each, for diagnosing a failure.</summary>
    public IEnumerable<string> Describe()
    {
        lock (_lock)
        {
            foreach (var (id, attempts) in _attempted)
            {
                foreach (var attempt in attempts)
                {
                    yield return $"tx {id}{(attempt.Acknowledged ? " (acknowledged)" : "")}: {string.Join(", ", attempt.Changes.Select(c => c.ToString()))}";
                }
            }
        }
    }

    private sealed class TransactionAttempt(object identity)
    {
        public object Identity { get; } = identity;

        public List<Change> Changes { get; } = [];

        public bool Acknowledged { get; set; }

        public void ApplyTo(ModelState state)
        {
            foreach (var change in Changes)
            {
                change.ApplyTo(state);
            }
        }
    }
}
