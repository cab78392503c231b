using Voron.Trees;

namespace Voron.Tests.Core.Trees;

/// <summary>
/// The append path (BT13: a Put past the last key reuses the previous Put's path) and the
/// occupancy report, against a sorted dictionary: fixed seeds, phases of in-order runs (with
/// updates, deletes and overflow values in between), random inserts, deletes and scans; after
/// every phase the tree is verified, compared entry by entry with the model, and its occupancy
/// report checked against its state and its pages.
/// </summary>
public sealed class BTreeAppendModelTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    [InlineData(6)]
    public void In_order_runs_mixed_with_random_changes_agree_with_a_sorted_dictionary(int seed)
    {
        var run = new AppendModel(seed);
        run.Execute();
    }

    [Fact]
    public void An_in_order_load_fills_its_leaves_and_the_report_says_so()
    {
        var store = new DictionaryPageAccess();
        var tree = new BTree(store, default);
        var key = new byte[8];
        for (long i = 0; i < 20_000; i++)
        {
            BinaryPrimitives.WriteInt64BigEndian(key, i);
            tree.Put(key, new byte[100]);
        }

        var occupancy = tree.MeasureOccupancy();
        Assert.Equal(tree.State.LeafPages, occupancy.LeafPages);
        Assert.Equal(tree.State.BranchPages, occupancy.BranchPages);
        Assert.Equal(occupancy.LeafPages, occupancy.LeafFillHistogram.Sum());

        // Every leaf but the last is full: in the top tenth of the histogram.
        Assert.True(occupancy.LeafFillHistogram[^1] >= occupancy.LeafPages - 1, $"leaves by fill: {occupancy}");
        Assert.True(occupancy.LeafFill > 0.95, $"{occupancy}");
        store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void The_occupancy_of_an_empty_tree_is_zero()
    {
        var occupancy = new BTree(new DictionaryPageAccess(), default).MeasureOccupancy();
        Assert.Equal(0, occupancy.LeafPages);
        Assert.Equal(0, occupancy.LeafFill);
        Assert.All(occupancy.LeafFillHistogram, count => Assert.Equal(0, count));
    }

    private sealed class AppendModel(int seed)
    {
        private readonly Random _random = new(seed);
        private readonly DictionaryPageAccess _store = new();
        private readonly SortedDictionary<byte[], byte[]> _model = new(ByteArrayComparer.Instance);
        private BTree _tree = null!;
        private long _next;
        private string _phase = "";

        public void Execute()
        {
            _tree = new BTree(_store, default);
            _next = _random.Next(1_000);

            // From empty, an in-order run alone: its leaves must come out full (a leaf is left
            // short only by the inline value of 3-4 KiB that did not fit, and the last leaf).
            _phase = "first in-order run";
            AppendRun(6_000, sideSteps: false);
            CheckWhole();
            var first = _tree.MeasureOccupancy();
            Check(first.LeafFill >= 0.9, $"an in-order load left its leaves short: {first}");

            for (var phase = 0; phase < 14; phase++)
            {
                switch (_random.Next(4))
                {
                    case 0:
                    case 1:
                        _phase = $"phase {phase}: in-order run";
                        AppendRun(_random.Next(50, 4_000), sideSteps: true);
                        break;
                    case 2:
                        _phase = $"phase {phase}: random inserts";
                        RandomInserts(_random.Next(100, 3_000));
                        break;
                    default:
                        _phase = $"phase {phase}: deletes";
                        Deletes(_random.Next(100, 3_000));
                        break;
                }

                if (_random.Next(3) == 0)
                {
                    _store.BeginTransaction();
                }

                CheckWhole();
            }
        }

        /// <summary>Keys above every key so far; with side steps, now and then an update, a delete, a read or a key below.</summary>
        private void AppendRun(int count, bool sideSteps)
        {
            for (var i = 0; i < count; i++)
            {
                _next += _random.Next(8) == 0 ? _random.Next(2, 1_000) : 1;
                Put(Key(_next), NewValue());
                if (!sideSteps)
                {
                    continue;
                }

                switch (_random.Next(40))
                {
                    case 0: // the last key again, same size: rewritten in place
                        Put(Key(_next), NewValue(_model[Key(_next)].Length));
                        break;
                    case 1: // the last key again, another size
                        Put(Key(_next), NewValue());
                        break;
                    case 2: // the last key goes: the next append is above a key that no longer exists
                        Delete(Key(_next));
                        break;
                    case 3: // a key in the middle, then the run goes on
                        Put(Key(_random.NextInt64(_next)), NewValue());
                        break;
                    case 4:
                        var probe = Key(_random.NextInt64(_next + 2));
                        Check(_tree.TryGet(probe, out var found) == _model.TryGetValue(probe, out var expected) &&
                              (expected == null || found.SequenceEqual(expected)), "TryGet disagrees with the model");
                        break;
                    case 6: // a delete that finds nothing: it descends elsewhere and changes nothing
                        var absent = Key(_random.NextInt64(_next));
                        if (!_model.ContainsKey(absent))
                        {
                            Delete(absent);
                        }

                        break;
                    case 5: // a key of another length above the run (a longer key sorts after its prefix)
                        var longer = new byte[9 + _random.Next(20)];
                        Key(_next).CopyTo(longer, 0);
                        Put(longer, NewValue());
                        break;
                }
            }
        }

        private void RandomInserts(int count)
        {
            for (var i = 0; i < count; i++)
            {
                Put(Key(_random.NextInt64(_next + (_next / 10) + 2)), NewValue());
            }
        }

        /// <summary>Random keys, or the run of the last keys (the right edge shrinks and merges).</summary>
        private void Deletes(int count)
        {
            var keys = _model.Keys.ToList();
            var tail = _random.Next(2) == 0;
            for (var i = 0; i < count && keys.Count > 0; i++)
            {
                var index = tail ? keys.Count - 1 : _random.Next(keys.Count);
                Delete(keys[index]);
                keys.RemoveAt(index);
            }
        }

        private void Put(byte[] key, byte[] value)
        {
            _tree.Put(key, value);
            _model[key] = value;
        }

        private void Delete(byte[] key)
        {
            Check(_tree.Delete(key) == _model.Remove(key), "Delete disagrees with the model");
        }

        private void CheckWhole()
        {
            _store.VerifyOwnsExactly(_tree, $"seed {seed}, {_phase}: ");
            Check(_tree.State.EntryCount == _model.Count, $"EntryCount {_tree.State.EntryCount}, model {_model.Count}");

            var cursor = _tree.OpenCursor();
            var more = cursor.SeekFirst();
            foreach (var (key, value) in _model)
            {
                Check(more && cursor.Key.SequenceEqual(key) && cursor.Value.SequenceEqual(value), "forward scan disagrees with the model");
                more = cursor.MoveNext();
            }

            Check(!more, "forward scan found more entries than the model");
            more = cursor.SeekLast();
            foreach (var (key, _) in _model.Reverse().Take(500))
            {
                Check(more && cursor.Key.SequenceEqual(key), "backward scan disagrees with the model");
                more = cursor.MovePrevious();
            }

            var occupancy = _tree.MeasureOccupancy();
            var state = _tree.State;
            Check(occupancy.LeafPages == state.LeafPages && occupancy.BranchPages == state.BranchPages && occupancy.OverflowPages == state.OverflowPages,
                $"occupancy {occupancy} disagrees with the state {state}");
            Check(occupancy.LeafFillHistogram.Sum() == occupancy.LeafPages, $"the histogram does not count every leaf: {occupancy}");
            Check(occupancy.OverflowValueBytes == _model.Values.Where(v => TreePageEditor.NeedsOverflow(8, v.Length)).Sum(v => (long)v.Length) ||
                  _model.Keys.Any(k => k.Length != 8), "overflow value bytes disagree with the model");
            Check(occupancy.LeafFill is > 0 and <= 1 || _model.Count == 0, $"leaf fill out of range: {occupancy}");
        }

        private static byte[] Key(long number)
        {
            var key = new byte[8];
            BinaryPrimitives.WriteInt64BigEndian(key, number);
            return key;
        }

        /// <summary>Mostly small values; one in 25 large enough for an overflow run.</summary>
        private byte[] NewValue(int? length = null)
        {
            var value = new byte[length ?? (_random.Next(25) == 0 ? _random.Next(3_000, 20_001) : _random.Next(0, 200))];
            _random.NextBytes(value);
            return value;
        }

        private void Check(bool condition, string what)
        {
            if (!condition)
            {
                throw new InvalidOperationException($"seed {seed}, {_phase}: {what}");
            }
        }
    }
}
