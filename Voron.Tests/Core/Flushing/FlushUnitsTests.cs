using Voron.Flushing;
using Voron.Journal.Diff;

namespace Voron.Tests.Core.Flushing;

/// <summary>
/// FL10: the flush writes only the 4 KiB units of a page its commits changed. A wrong mask loses
/// data silently, so the model test runs the same random transactions on two stores — one
/// writing changed units only, one writing whole pages (the switch off) — and requires their data
/// files to be byte for byte equal after every flush, reopen and crash.
/// </summary>
public sealed class FlushUnitsTests(ITestOutputHelper output)
{
    private const string DataFile = "/store/voron.data";

    [Fact]
    public void A_diff_marks_every_unit_holding_a_changed_byte_and_only_units_near_one()
    {
        var random = new Random(23);
        var diff = new byte[3 * Constants.PageSize];
        for (var round = 0; round < 5_000; round++)
        {
            var pages = random.Next(4) == 0 ? random.Next(2, 4) : 1;
            var before = new byte[pages * Constants.PageSize];
            random.NextBytes(before);
            if (random.Next(3) == 0)
            {
                Array.Clear(before, random.Next(before.Length / 2), before.Length / 4); // zero runs: negative ranges
            }

            var after = (byte[])before.Clone();
            var changes = random.Next(0, 6);
            for (var c = 0; c < changes; c++)
            {
                var at = random.Next(after.Length);
                var length = Math.Min(random.Next(1, random.Next(2) == 0 ? 16 : 6000), after.Length - at);
                if (random.Next(3) == 0)
                {
                    after.AsSpan(at, length).Clear();
                }
                else
                {
                    random.NextBytes(after.AsSpan(at, length));
                }
            }

            var length2 = PageDiff.Compute(before, after, diff);
            var reference = Reference(before, after);
            if (length2 < 0)
            {
                continue; // stored whole: every unit, nothing to check here
            }

            var mask = FlushUnits.FromDiff(diff.AsSpan(0, length2), after.Length);
            Assert.True((mask & reference) == reference, $"round {round}: mask {mask:X} misses changed units {reference:X}");
            // A unit marked beyond the reference holds a range's unchanged bytes: a merged gap is
            // shorter than a range header, so such a unit lies within 8 bytes of a changed one.
            for (var unit = 0; unit < FlushUnits.Count(after.Length); unit++)
            {
                if ((mask & ~reference & (1UL << unit)) != 0)
                {
                    var near = (unit > 0 && (reference & (1UL << (unit - 1))) != 0) || (reference & (1UL << (unit + 1))) != 0;
                    Assert.True(near, $"round {round}: unit {unit} is marked, no changed byte is near it");
                }
            }
        }
    }

    [Fact]
    public void Masks_of_runs_too_long_to_track_are_whole()
    {
        Assert.Equal(FlushUnits.All, FlushUnits.FromDiff([], 33 * Constants.PageSize));
        Assert.True(FlushUnits.IsWhole(0b11, Constants.PageSize));
        Assert.False(FlushUnits.IsWhole(0b10, Constants.PageSize));
        Assert.True(FlushUnits.IsWhole(FlushUnits.All, 32 * Constants.PageSize));
        Assert.Equal(4096, FlushUnits.BytesOf(0b10, Constants.PageSize));
        Assert.Equal(3 * 4096, FlushUnits.BytesOf(0b1011, 2 * Constants.PageSize));
    }

    [Fact]
    public void Changing_one_half_of_a_raw_page_flushes_that_half_only()
    {
        using var fileSystem = StoreFactory.NewFileSystem();
        using var env = StorageEnvironment.Open(StoreFactory.Options(fileSystem));
        using (var tx = env.BeginWrite())
        {
            tx.CreatePageFile("db").Write(0, Pattern(4 * Constants.PageSize, 1));
            tx.Commit();
        }

        env.FlushToDataFile();
        using (var tx = env.BeginWrite())
        {
            tx.OpenPageFile("db")!.Write(Constants.PageSize + 5000, Pattern(100, 2)); // the second half of block 1
            tx.Commit();
        }

        // Block 1 and the tree page that holds its map entry (its new checksum) are flushed; of
        // block 1 only the changed half.
        var flushed = env.FlushToDataFile()!;
        Assert.InRange(flushed.Pages, 2, 3);
        Assert.InRange(flushed.Bytes, FlushUnits.UnitSize, flushed.Pages * Constants.PageSize - FlushUnits.UnitSize);
        using var read = env.BeginRead();
        var back = new byte[100];
        read.OpenPageFile("db")!.Read(Constants.PageSize + 5000, back);
        Assert.Equal(Pattern(100, 2), back);
        env.CheckIntegrity();
    }

    [Fact]
    public void Random_transactions_leave_the_same_data_file_as_whole_page_flushes()
    {
        for (var round = 0; round < 6; round++)
        {
            var seed = TestSeed.Next(output, nameof(Random_transactions_leave_the_same_data_file_as_whole_page_flushes) + round);
            RunModel(seed);
        }
    }

    private void RunModel(int seed)
    {
        var random = new Random(seed);
        var partial = new Store(true);
        var whole = new Store(false);
        long partialBytes = 0, wholeBytes = 0;
        try
        {
            for (var step = 0; step < 150; step++)
            {
                var operations = TransactionOf(random);
                partial.Apply(operations);
                whole.Apply(operations);
                switch (random.Next(12))
                {
                    case 0 or 1 or 2 or 3:
                        partialBytes += partial.Env.FlushToDataFile()?.Bytes ?? 0;
                        wholeBytes += whole.Env.FlushToDataFile()?.Bytes ?? 0;
                        AssertSameDataFile(partial, whole, seed, step);
                        break;
                    case 4:
                        partial.Reopen(crash: false);
                        whole.Reopen(crash: false);
                        AssertSameDataFile(partial, whole, seed, step);
                        break;
                    case 5:
                        // A crash: the data file holds what earlier flushes wrote, recovery replays the rest.
                        partial.Reopen(crash: true);
                        whole.Reopen(crash: true);
                        AssertSameDataFile(partial, whole, seed, step);
                        break;
                }
            }

            partialBytes += partial.Env.FlushToDataFile()?.Bytes ?? 0;
            wholeBytes += whole.Env.FlushToDataFile()?.Bytes ?? 0;
            AssertSameDataFile(partial, whole, seed, -1);
            partial.Env.CheckIntegrity();
            partial.Reopen(crash: true);
            partial.Env.CheckIntegrity();
            partial.AssertContents(whole, seed);
            output.WriteLine($"seed {seed}: flushed {partialBytes:N0} bytes by changed units, {wholeBytes:N0} by whole pages");
            Assert.True(partialBytes < wholeBytes, $"seed {seed}: the switch made no difference ({partialBytes} vs {wholeBytes} bytes)");
        }
        finally
        {
            partial.Env.Dispose();
            whole.Env.Dispose();
        }
    }

    /// <summary>One random transaction: raw page writes in random 4 KiB units, tree puts (overflow values too), frees.</summary>
    private static List<Action<WriteTransaction>> TransactionOf(Random random)
    {
        var operations = new List<Action<WriteTransaction>>();
        var count = random.Next(1, 8);
        for (var i = 0; i < count; i++)
        {
            var roll = random.Next(100);
            var file = $"file-{random.Next(3)}";
            var seed = random.Next();
            if (roll < 45)
            {
                // A few bytes in one 4 KiB unit of one of the first 12 blocks (a SQLite page update).
                var unit = random.Next(24);
                var at = unit * 4096L + random.Next(4096 - 64);
                var length = random.Next(1, 64);
                operations.Add(tx => tx.CreatePageFile(file).Write(at, Pattern(length, seed)));
            }
            else if (roll < 52)
            {
                var at = random.Next(16 * Constants.PageSize);
                var length = random.Next(1, 3 * Constants.PageSize);
                operations.Add(tx => tx.CreatePageFile(file).Write(at, Pattern(length, seed)));
            }
            else if (roll < 57)
            {
                var length = random.Next(0, 14 * Constants.PageSize);
                operations.Add(tx => tx.CreatePageFile(file).SetLength(length)); // frees blocks past the end
            }
            else if (roll < 59)
            {
                operations.Add(tx => tx.DeletePageFile(file));
            }
            else if (roll < 80)
            {
                var key = Encoding.ASCII.GetBytes($"key-{random.Next(400):D4}");
                var length = random.Next(4) == 0 ? random.Next(5_000, 30_000) : random.Next(1, 300); // overflow runs too
                operations.Add(tx => tx.CreateTree("t").Put(key, Pattern(length, seed)));
            }
            else
            {
                var key = Encoding.ASCII.GetBytes($"key-{random.Next(400):D4}");
                operations.Add(tx => tx.CreateTree("t").Delete(key));
            }
        }

        return operations;
    }

    private static void AssertSameDataFile(Store partial, Store whole, int seed, int step)
    {
        var a = partial.ReadDataFile();
        var b = whole.ReadDataFile();
        var common = Math.Min(a.Length, b.Length);
        for (var page = 0; page < common / Constants.PageSize; page++)
        {
            var pa = a.AsSpan(page * Constants.PageSize, Constants.PageSize);
            var pb = b.AsSpan(page * Constants.PageSize, Constants.PageSize);
            Assert.True(pa.SequenceEqual(pb), $"seed {seed} step {step}: page {page} differs from the whole-page flush's");
        }

        // Lengths may differ only by zero-filled growth.
        Assert.True(a.AsSpan(common).IndexOfAnyExcept((byte)0) < 0 && b.AsSpan(common).IndexOfAnyExcept((byte)0) < 0, $"seed {seed} step {step}: the files' tails differ");
    }

    private static byte[] Pattern(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    /// <summary>The reference mask: the units whose bytes differ.</summary>
    private static ulong Reference(ReadOnlySpan<byte> before, ReadOnlySpan<byte> after)
    {
        ulong mask = 0;
        for (var unit = 0; unit < after.Length / FlushUnits.UnitSize; unit++)
        {
            if (!before.Slice(unit * FlushUnits.UnitSize, FlushUnits.UnitSize).SequenceEqual(after.Slice(unit * FlushUnits.UnitSize, FlushUnits.UnitSize)))
            {
                mask |= 1UL << unit;
            }
        }

        return mask;
    }

    /// <summary>A store on its own in-memory file system, flushing by changed units or by whole pages.</summary>
    private sealed class Store(bool changedUnitsOnly)
    {
        private readonly InMemoryFileSystem _fileSystem = StoreFactory.NewFileSystem();

        public StorageEnvironment Env { get; private set; } = null!;

        private StorageEnvironmentOptions Options()
        {
            var options = StoreFactory.Options(_fileSystem, journalFileSize: 256 * 1024);
            options.FlushChangedUnitsOnly = changedUnitsOnly;
            return options;
        }

        public void Apply(List<Action<WriteTransaction>> operations)
        {
            Env ??= StorageEnvironment.Open(Options());
            using var tx = Env.BeginWrite();
            foreach (var operation in operations)
            {
                operation(tx);
            }

            tx.Commit();
        }

        public void Reopen(bool crash)
        {
            if (crash)
            {
                Env.CloseWithoutFlush();
            }
            else
            {
                Env.Dispose();
            }

            Env = StorageEnvironment.Open(Options());
        }

        public byte[] ReadDataFile()
        {
            using var file = _fileSystem.Open(DataFile, FileOpenMode.OpenExisting);
            var bytes = new byte[file.Length];
            file.Read(0, bytes);
            return bytes;
        }

        public void AssertContents(Store other, int seed)
        {
            using var mine = Env.BeginRead();
            using var theirs = other.Env.BeginRead();
            Assert.Equal(theirs.GetPageFileNames(), mine.GetPageFileNames());
            foreach (var name in mine.GetPageFileNames())
            {
                var a = mine.OpenPageFile(name)!;
                var b = theirs.OpenPageFile(name)!;
                Assert.Equal(b.Length, a.Length);
                var ba = new byte[a.Length];
                var bb = new byte[b.Length];
                a.Read(0, ba);
                b.Read(0, bb);
                Assert.True(ba.AsSpan().SequenceEqual(bb), $"seed {seed}: page file {name} differs");
            }
        }
    }
}
