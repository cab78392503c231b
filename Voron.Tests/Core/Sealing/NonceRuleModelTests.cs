using Voron.Sealing;
using Xunit.Abstractions;
using static Voron.Tests.Core.Sealing.SealingFixtures;

namespace Voron.Tests.Core.Sealing;

/// <summary>
/// The nonce rule (SL1) as a property: a seeded model of stores and the processes that open them —
/// page and record writes, flushes, crashes (the process's state dropped), clean closes, reopens,
/// new stores, and copies of a store (a backup restored elsewhere, cp, a replica), several of
/// which may be open at once — never seals twice under one (subkey, nonce). The counter is forced
/// to a few bits so that it wraps hundreds of times. The same model run with a counter persisted
/// in the header (reserved ahead, the strongest form of it) does repeat once copies are in play,
/// which is why SL1 draws its prefix instead.
/// </summary>
public sealed class NonceRuleModelTests(ITestOutputHelper output)
{
    private const int Steps = 10_000;
    private static readonly byte[] UserKey = Key(0x33);

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public void No_subkey_and_nonce_repeat_across_writes_flushes_crashes_reopens_and_copies(int counterBits)
    {
        var seed = TestSeed.Next(output, $"{nameof(No_subkey_and_nonce_repeat_across_writes_flushes_crashes_reopens_and_copies)} ({counterBits} bits)");
        var prefixes = new Random(seed ^ 0x5EA1);
        var opened = new List<SealingProcess>();

        var model = new NonceModel(new Random(seed), disk =>
        {
            var process = new SealingProcess(disk, counterBits, prefixes);
            opened.Add(process);
            return process;
        });
        var result = model.Run(Steps, copies: true);

        output.WriteLine($"{result.Seals} seals, {result.Copies} copies, {result.Crashes} crashes, {result.Opens} opens, " +
                         $"{opened.Sum(p => p.PrefixesDrawn)} prefixes drawn");
        Assert.True(result.Repeats.Count == 0, $"seed {seed}: repeated (subkey, nonce): {string.Join(", ", result.Repeats.Take(5))}");
        Assert.True(result.Copies > 10 && result.Crashes > 10 && opened.Sum(p => p.PrefixesDrawn) > 2 * result.Opens,
            $"seed {seed}: the model did not exercise copies, crashes and the counter's wrap (two sources an open, one prefix each without a wrap)");
    }

    [Fact]
    public void A_counter_persisted_in_the_header_survives_crashes_but_repeats_across_copies()
    {
        var seed = TestSeed.Next(output, nameof(A_counter_persisted_in_the_header_survives_crashes_but_repeats_across_copies));

        var withoutCopies = new NonceModel(new Random(seed), disk => new PersistedCounterProcess(disk)).Run(Steps, copies: false);
        var withCopies = new NonceModel(new Random(seed), disk => new PersistedCounterProcess(disk)).Run(Steps, copies: true);

        Assert.True(withoutCopies.Repeats.Count == 0, $"seed {seed}: a reserved-ahead counter repeated without copies: {string.Join(", ", withoutCopies.Repeats.Take(5))}");
        Assert.True(withCopies.Repeats.Count > 0, $"seed {seed}: copies of a store with a persisted counter were expected to repeat nonces");
    }

    /// <summary>What a store's directory holds that matters to nonces: its identity, its salt, and (for the counter scheme) the counter its header persisted.</summary>
    private sealed class Disk(ulong storeId, byte[] salt)
    {
        public ulong StoreId { get; } = storeId;

        public byte[] Salt { get; } = salt;

        public ulong PersistedCounter { get; set; }

        public Disk Copy() => new(StoreId, Salt) { PersistedCounter = PersistedCounter };

        /// <summary>Who the subkeys belong to: the same user key, salt and store id derive the same subkeys (SL2).</summary>
        public string KeyIdentity => $"{StoreId:x16}/{Convert.ToHexString(Salt)}";
    }

    /// <summary>A process with a store open: it seals pages and records and reports the nonces it used.</summary>
    private interface IProcess : IDisposable
    {
        void SealPage(Random random, List<(string Subkey, string Nonce)> used);

        void SealRecord(Random random, List<(string Subkey, string Nonce)> used);

        void Flush();
    }

    /// <summary>The rule's scheme, through the real key, nonce source and seals; only the prefix draws are seeded, so a run replays.</summary>
    private sealed class SealingProcess : IProcess
    {
        private readonly Disk disk;
        private readonly StoreKey key;
        private readonly Aead pagesAead;
        private readonly Aead journalAead;
        private readonly NonceSource pageNonces;
        private readonly NonceSource journalNonces;
        private readonly PageSeal pages;
        private readonly RecordSeal records;

        public SealingProcess(Disk disk, int counterBits, Random prefixes)
        {
            this.disk = disk;
            key = Voron.Sealing.StoreKey.Derive(UserKey, disk.Salt, disk.StoreId, SealFormat.Preferred);
            pagesAead = key.CreatePagesAead();
            journalAead = key.CreateJournalAead();
            pageNonces = new NonceSource(counterBits, destination => prefixes.NextBytes(destination));
            journalNonces = new NonceSource(counterBits, destination => prefixes.NextBytes(destination));
            pages = new PageSeal(pagesAead, pageNonces);
            records = new RecordSeal(journalAead, journalNonces);
        }

        public int PrefixesDrawn => pageNonces.PrefixesDrawn + journalNonces.PrefixesDrawn;

        public void SealPage(Random random, List<(string Subkey, string Nonce)> used)
        {
            var page = LeafPage(random.Next(1, 1000), random);
            pages.Seal(page);
            used.Add((disk.KeyIdentity + "/pages", Convert.ToHexString(page, SealFormat.PageNonceOffset, SealFormat.NonceSize)));
        }

        public void SealRecord(Random random, List<(string Subkey, string Nonce)> used)
        {
            var payload = new byte[random.Next(0, 200)];
            random.NextBytes(payload);
            var sealedRange = new byte[RecordSeal.SealedLength(payload.Length)];
            records.Seal(payload, sealedRange, BitConverter.GetBytes(random.NextInt64()));
            used.Add((disk.KeyIdentity + "/journal", Convert.ToHexString(sealedRange, 0, SealFormat.NonceSize)));
        }

        public void Flush()
        {
            // SL1: nothing of a nonce source is persisted.
        }

        public void Dispose()
        {
            pagesAead.Dispose();
            journalAead.Dispose();
            key.Dispose();
        }
    }

    /// <summary>
    /// The scheme SL1 rejects: a 96-bit counter kept in the header, reserved ahead (a block of
    /// values is made durable before any is used), so no crash hands a value out twice.
    /// </summary>
    private sealed class PersistedCounterProcess(Disk disk) : IProcess
    {
        private const ulong Block = 16;
        private ulong next = disk.PersistedCounter;
        private ulong reservedTo = disk.PersistedCounter;

        public void SealPage(Random random, List<(string Subkey, string Nonce)> used) => used.Add((disk.KeyIdentity + "/pages", Take()));

        public void SealRecord(Random random, List<(string Subkey, string Nonce)> used) => used.Add((disk.KeyIdentity + "/journal", Take()));

        public void Flush()
        {
        }

        public void Dispose()
        {
        }

        private string Take()
        {
            if (next == reservedTo)
            {
                reservedTo = next + Block;
                disk.PersistedCounter = reservedTo; // durable before the first value of the block is used
            }

            return (next++).ToString("x24", CultureInfo.InvariantCulture);
        }
    }

    private sealed record ModelResult(List<string> Repeats, int Seals, int Copies, int Crashes, int Opens);

    /// <summary>The stores, their copies and the processes that have them open; each step is one event.</summary>
    private sealed class NonceModel(Random random, Func<Disk, IProcess> open)
    {
        private readonly List<Disk> disks = [];
        private readonly Dictionary<Disk, IProcess> running = [];

        public ModelResult Run(int steps, bool copies)
        {
            var used = new List<(string Subkey, string Nonce)>();
            int copiesMade = 0, crashes = 0, opens = 0;
            NewStore();
            for (var step = 0; step < steps; step++)
            {
                var roll = random.Next(100);
                if (running.Count == 0 || roll < 8)
                {
                    // Reopen a store no process has open (the lock allows one process per directory).
                    var closed = disks.Where(d => !running.ContainsKey(d)).ToList();
                    if (closed.Count > 0)
                    {
                        var disk = closed[random.Next(closed.Count)];
                        running[disk] = open(disk);
                        opens++;
                    }

                    continue;
                }

                var (target, process) = running.ElementAt(random.Next(running.Count));
                switch (roll)
                {
                    case < 50:
                        process.SealPage(random, used);
                        break;
                    case < 80:
                        process.SealRecord(random, used);
                        break;
                    case < 86:
                        process.Flush();
                        break;
                    case < 91:
                        // A crash: the process's state is gone; nothing of it reached the disk but what it persisted.
                        running.Remove(target);
                        crashes++;
                        break;
                    case < 94:
                        process.Dispose();
                        running.Remove(target);
                        break;
                    case < 99 when copies:
                        // A copy of the directory as it is on disk (a backup restored elsewhere, cp, a replica), which
                        // may be copied again and opened beside the original.
                        disks.Add(disks[random.Next(disks.Count)].Copy());
                        copiesMade++;
                        break;
                    default:
                        NewStore();
                        break;
                }
            }

            foreach (var process in running.Values)
            {
                process.Dispose();
            }

            var seen = new HashSet<(string, string)>();
            var repeats = used.Where(u => !seen.Add(u)).Select(u => $"{u.Subkey} {u.Nonce}").ToList();
            return new ModelResult(repeats, used.Count, copiesMade, crashes, opens);
        }

        private void NewStore()
        {
            var salt = new byte[SealFormat.SaltSize];
            random.NextBytes(salt);
            disks.Add(new Disk((ulong)random.NextInt64(1, long.MaxValue), salt));
        }
    }
}
