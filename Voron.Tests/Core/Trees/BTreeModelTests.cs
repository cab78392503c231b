using Voron.Trees;

namespace Voron.Tests.Core.Trees;

/// <summary>
/// Model-based test: random operations on a tree and on a sorted dictionary must agree. Rerun a
/// failure with VORON_SEED=&lt;seed&gt; (printed in the test output and in every failure message).
/// </summary>
public sealed class BTreeModelTests(ITestOutputHelper output)
{
    private const int VerifyEvery = 4_000;

    /// <summary>Short keys (1..64 bytes, now and then up to MaxKeySize), small values and now and then large ones.</summary>
    [Fact]
    public void Random_operations_agree_with_a_sorted_dictionary() => RunModel(100_000, longKeys: false);

    /// <summary>
    /// Long keys sharing long prefixes: separators stay long, branches hold a handful of nodes, and
    /// branch splits, merges and separator replacements happen often.
    /// </summary>
    [Fact]
    public void Random_operations_on_long_shared_prefix_keys_agree_with_a_sorted_dictionary() => RunModel(30_000, longKeys: true);

    /// <summary>
    /// As the first, in transactions of 2,000 operations: most full leaves then find themselves
    /// and their right sibling already modified, so they share (BT12) instead of splitting.
    /// </summary>
    [Fact]
    public void Random_operations_in_long_transactions_agree_with_a_sorted_dictionary() => RunModel(60_000, longKeys: false, transactionLength: 2_000);

    private void RunModel(int operations, bool longKeys, int transactionLength = 64)
    {
        var seedText = Environment.GetEnvironmentVariable("VORON_SEED");
        var seed = seedText is null ? Random.Shared.Next() : int.Parse(seedText, CultureInfo.InvariantCulture);
        output.WriteLine($"seed {seed} (rerun with VORON_SEED={seed})");

        var run = new ModelRun(seed, operations, longKeys, transactionLength);
        try
        {
            run.Execute();
        }
        catch (Exception error) when (error is not ModelMismatchException)
        {
            throw new ModelMismatchException($"seed {seed}, operation {run.Step}: {error.GetType().Name}: {error.Message}", error);
        }

        output.WriteLine($"state half way: {run.PeakState}");
    }

    /// <summary>One replayable run; every failure message names the seed and the operation.</summary>
    private sealed class ModelRun(int seed, int operations, bool longKeys, int transactionLength)
    {
        private readonly Random _random = new(seed);
        private readonly DictionaryPageAccess _store = new();
        private readonly SortedDictionary<byte[], byte[]> _model = new(ByteArrayComparer.Instance);
        private readonly SortedSet<byte[]> _keys = new(ByteArrayComparer.Instance);
        private readonly List<byte[]> _keyList = [];
        private BTree _tree = null!;

        public int Step { get; private set; }

        public TreeState PeakState { get; private set; }

        public void Execute()
        {
            _tree = new BTree(_store, default);
            for (Step = 0; Step < operations; Step++)
            {
                // Grow for the first half, then shrink: the tree climbs several levels and then
                // merges back down.
                var growing = Step < operations / 2;
                var roll = _random.Next(100);
                if (roll < (growing ? 40 : 15))
                {
                    PutNew();
                }
                else if (roll < (growing ? 55 : 30))
                {
                    Update();
                }
                else if (roll < (growing ? 65 : 65))
                {
                    Delete();
                }
                else if (roll < 88)
                {
                    Get();
                }
                else if (roll < 99)
                {
                    Scan();
                }
                else
                {
                    CursorSeesChange();
                }

                if (Step % transactionLength == 0)
                {
                    _store.BeginTransaction();
                }

                if (Step % VerifyEvery == 0)
                {
                    CheckWhole();
                }

                if (Step == operations / 2)
                {
                    PeakState = _tree.State;
                }
            }

            CheckWhole();
            Step = operations;
            foreach (var key in _keyList.ToArray())
            {
                Check(_tree.Delete(key), "drain: delete of a present key returned false");
                RemoveFromModel(key);
            }

            Check(_tree.State == default, $"drain: state {_tree.State} is not empty");
            Check(_store.LivePages == 0, $"drain: {_store.LivePages} pages still allocated");
        }

        private void PutNew()
        {
            var key = NewKey();
            var value = NewValue();
            var existed = _model.ContainsKey(key);
            _tree.Put(key, value);
            _model[key] = value;
            if (!existed)
            {
                _keys.Add(key);
                _keyList.Add(key);
            }

            Check(_tree.State.EntryCount == _model.Count, $"count {_tree.State.EntryCount} after put, model {_model.Count}");
        }

        private void Update()
        {
            if (_keyList.Count == 0)
            {
                return;
            }

            var key = _keyList[_random.Next(_keyList.Count)];
            var value = NewValue();
            _tree.Put(key, value);
            _model[key] = value;
        }

        private void Delete()
        {
            if (_keyList.Count == 0 || _random.Next(10) == 0)
            {
                var absent = NewKey();
                Check(_tree.Delete(absent) == _model.ContainsKey(absent), "delete of a random key disagrees");
                RemoveFromModel(absent);
                return;
            }

            var key = _keyList[_random.Next(_keyList.Count)];
            Check(_tree.Delete(key), "delete of a present key returned false");
            RemoveFromModel(key);
            Check(!_tree.TryGet(key, out _), "a deleted key is still found");
        }

        private void Get()
        {
            var key = _keyList.Count > 0 && _random.Next(4) != 0 ? _keyList[_random.Next(_keyList.Count)] : NewKey();
            var found = _tree.TryGet(key, out var value);
            Check(found == _model.TryGetValue(key, out var expected), $"TryGet found={found} disagrees with the model");
            if (found)
            {
                Check(value.SequenceEqual(expected), $"TryGet returned {value.Length} bytes that differ from the model's {expected!.Length}");
            }
        }

        private void Scan()
        {
            var cursor = _tree.OpenCursor();
            var start = _keyList.Count > 0 && _random.Next(2) == 0 ? _keyList[_random.Next(_keyList.Count)] : NewKey();
            var limit = _random.Next(1, 60);
            var forward = _random.Next(2) == 0;
            IEnumerable<byte[]> expected;
            bool positioned;
            if (forward)
            {
                positioned = cursor.Seek(start);
                expected = _keys.Count == 0 || ByteArrayComparer.Instance.Compare(start, _keys.Max) > 0 ? [] : _keys.GetViewBetween(start, _keys.Max!);
            }
            else
            {
                positioned = cursor.SeekForPrevious(start);
                expected = _keys.Count == 0 || ByteArrayComparer.Instance.Compare(start, _keys.Min) < 0 ? [] : _keys.GetViewBetween(_keys.Min!, start).Reverse();
            }

            var seen = 0;
            foreach (var key in expected.Take(limit))
            {
                Check(positioned, $"{(forward ? "forward" : "backward")} scan ended after {seen} entries; the model has more");
                Check(cursor.Key.SequenceEqual(key), $"{(forward ? "forward" : "backward")} scan entry {seen} has the wrong key");
                Check(cursor.Value.SequenceEqual(_model[key]), $"{(forward ? "forward" : "backward")} scan entry {seen} has the wrong value");
                seen++;
                positioned = forward ? cursor.MoveNext() : cursor.MovePrevious();
            }

            if (seen < limit)
            {
                Check(!positioned, $"{(forward ? "forward" : "backward")} scan found an entry after the model's last");
            }
        }

        private void CursorSeesChange()
        {
            var cursor = _tree.OpenCursor();
            if (!cursor.SeekFirst())
            {
                return;
            }

            PutNew();
            try
            {
                cursor.MoveNext();
            }
            catch (InvalidOperationException error) when (error.Message.Contains("the tree changed", StringComparison.Ordinal))
            {
                return;
            }

            Check(false, "a cursor moved after its tree changed");
        }

        private void CheckWhole()
        {
            _store.VerifyOwnsExactly(_tree);
            Check(_tree.State.EntryCount == _model.Count, $"EntryCount {_tree.State.EntryCount}, model {_model.Count}");
            var cursor = _tree.OpenCursor();
            var more = cursor.SeekFirst();
            foreach (var (key, value) in _model)
            {
                Check(more && cursor.Key.SequenceEqual(key) && cursor.Value.SequenceEqual(value), "full scan disagrees with the model");
                more = cursor.MoveNext();
            }

            Check(!more, "full scan found more entries than the model");
        }

        private void RemoveFromModel(byte[] key)
        {
            if (_model.Remove(key))
            {
                _keys.Remove(key);
                var index = _keyList.FindIndex(k => k.AsSpan().SequenceEqual(key));
                _keyList[index] = _keyList[^1];
                _keyList.RemoveAt(_keyList.Count - 1);
            }
        }

        /// <summary>Random keys over a small alphabet, so many share prefixes (separators get exercised).</summary>
        private byte[] NewKey()
        {
            if (longKeys)
            {
                // One of four 900-byte prefixes, cut at a random length, then a short suffix.
                var prefixLength = _random.Next(100, 901);
                var suffixLength = _random.Next(1, 9);
                var longKey = new byte[prefixLength + suffixLength];
                longKey.AsSpan(0, prefixLength).Fill((byte)('p' + _random.Next(4)));
                for (var i = prefixLength; i < longKey.Length; i++)
                {
                    longKey[i] = (byte)('a' + _random.Next(4));
                }

                return longKey;
            }

            var length = _random.Next(100) == 0 ? _random.Next(65, Constants.MaxKeySize + 1) : _random.Next(1, 65);
            var key = new byte[length];
            var narrow = _random.Next(2) == 0;
            for (var i = 0; i < length; i++)
            {
                key[i] = narrow ? (byte)('a' + _random.Next(4)) : (byte)_random.Next(256);
            }

            return key;
        }

        private byte[] NewValue()
        {
            var length = _random.Next(100) == 0 ? _random.Next(3000, 20_001) : _random.Next(0, longKeys ? 1001 : 301);
            var value = new byte[length];
            _random.NextBytes(value);
            return value;
        }

        private void Check(bool condition, string what)
        {
            if (!condition)
            {
                throw new ModelMismatchException($"seed {seed}, operation {Step}: {what}");
            }
        }
    }

    private sealed class ModelMismatchException(string message, Exception? inner = null) : Exception(message, inner);
}
