using Voron.Header;
using Voron.Journal.Diff;
using Voron.Paging;
using Voron.Testing.Faults;

namespace Voron.Tests.Core.Faults;

/// <summary>
/// The class of bytes from disk that make a reader throw something other than
/// <see cref="CorruptionException"/> (an OverflowException, an ArgumentOutOfRangeException, an
/// allocation sized by an on-disk count). Every on-disk structure's reader gets random mutations
/// (Mutator) of valid bytes — with its checksums re-stamped half the time, so the field checks
/// behind them are reached, as if a buggy or hostile writer had written the bytes — and must
/// either succeed or throw CorruptionException (FormatVersionException for a version field),
/// never another exception, a hang (StateRunner's timeout) or a crash. A bounded number of
/// mutations per reader by default; VORON_SOAK=n scales them up.
/// </summary>
public sealed class OnDiskFuzzTests(ITestOutputHelper output)
{
    private const ulong StoreId = 0x0F_0F_17_17_0F_0F_17_17;

    /// <summary>A soak of n crash states fuzzes each cheap reader n / 20 times, whole stores n / 50 times.</summary>
    private static int Iterations(int defaultCount, double share = 0.05) => CrashBudget.Count(defaultCount, share);

    [Fact]
    public void Header_file_copies_decode_or_are_refused_clearly()
    {
        var seed = TestSeed.Next(output, nameof(Header_file_copies_decode_or_are_refused_clearly));
        var valid = HeaderFile.Encode(new HeaderRecord(5, 17, 3, 8192, EnvironmentState.Empty with { NextPageNumber = 100 }, StoreId));
        Fuzz(seed, Iterations(20_000), random =>
        {
            var bytes = valid.ToArray();
            Mutator.Mutate(bytes, random, 0, random.Next(3) == 0 ? HeaderFile.Size : 136);
            switch (random.Next(3))
            {
                case 0:
                    BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));
                    break;
                case 1:
                    BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset), HeaderFile.FormatVersion1);
                    BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), Crc32C.Compute(bytes.AsSpan(0, HeaderFile.ChecksumOffset)));
                    break;
            }

            _ = HeaderFile.Decode(bytes, "/fuzz/headers.one");
        });
    }

    [Fact]
    public void Identity_page_and_environment_state_are_valid_or_refused_clearly()
    {
        var seed = TestSeed.Next(output, nameof(Identity_page_and_environment_state_are_valid_or_refused_clearly));
        var page = DataFileIdentity.Create();
        var state = (EnvironmentState.Empty with { NextPageNumber = 1000, FreeSpaceRoot = 7 }).ToArray();
        Fuzz(seed, Iterations(10_000), random =>
        {
            var bytes = page.ToArray();
            Mutator.Mutate(bytes, random, 0, 128);
            if (random.Next(2) == 0)
            {
                PageHeader.StampChecksum(bytes);
            }

            DataFileIdentity.Validate(bytes, "/fuzz/voron.data");
            var mutated = state.ToArray();
            Mutator.Mutate(mutated, random);
            _ = EnvironmentState.ReadFrom(mutated, "/fuzz", 0);
        });
    }

    [Fact]
    public void Page_diffs_apply_or_are_refused_as_invalid_data()
    {
        var seed = TestSeed.Next(output, nameof(Page_diffs_apply_or_are_refused_as_invalid_data));
        Fuzz(seed, Iterations(20_000), random =>
        {
            var pages = random.Next(1, 4);
            var previous = new byte[pages * Constants.PageSize];
            var current = new byte[previous.Length];
            random.NextBytes(previous);
            previous.CopyTo(current, 0);
            for (var i = random.Next(1, 20); i > 0; i--)
            {
                current[random.Next(current.Length)] = (byte)random.Next(256);
            }

            var diff = new byte[current.Length * 2];
            var length = PageDiff.Compute(previous, current, diff);
            if (length <= 0)
            {
                return;
            }

            var mutated = diff.AsSpan(0, length).ToArray();
            Mutator.Mutate(mutated, random);
            try
            {
                PageDiff.Apply(mutated, new byte[random.Next(3) == 0 ? random.Next(0, 3 * Constants.PageSize) : previous.Length]);
            }
            catch (InvalidDataException)
            {
                // the replay turns it into a CorruptionException naming the record
            }
        }, allowed: typeof(InvalidDataException));
    }

    [Fact]
    public void Journal_records_replay_or_are_refused_as_corruption()
    {
        var seed = TestSeed.Next(output, nameof(Journal_records_replay_or_are_refused_as_corruption));
        var (files, records) = BuildJournal(seed);
        Fuzz(seed, Iterations(10_000, share: 0.02), random =>
        {
            using var fs = new InMemoryFileSystem(16 << 20);
            using var release = FuzzStore.ReleaseOnDispose(fs, "/j");
            foreach (var (number, bytes) in files)
            {
                using var file = fs.Open(JournalFiles.PathOf("/j", number), FileOpenMode.CreateNew);
                file.Write(0, bytes);
            }

            var (start, length) = records[random.Next(records.Count)];
            var record = files[start.FileNumber].AsSpan((int)start.Offset, (int)length).ToArray();
            var bodyLength = record.Length / JournalRecord.SectorSize * JournalRecord.SectorDataSize;
            JournalRecord.Unframe(record, bodyLength);
            var payload = (int)Math.Min(bodyLength, JournalRecord.HeaderSize + BinaryPrimitives.ReadInt64LittleEndian(record.AsSpan(JournalRecord.StoredPayloadSizeOffset)));
            if (random.Next(2) == 0)
            {
                Mutator.Mutate(record, random, 0, JournalRecord.HeaderSize);
            }
            else
            {
                Mutator.Mutate(record, random, JournalRecord.HeaderSize, payload - JournalRecord.HeaderSize);
            }

            if (random.Next(4) != 0)
            {
                var head = record.AsSpan(0, JournalRecord.HeaderSize);
                BinaryPrimitives.WriteUInt32LittleEndian(head[JournalRecord.HeaderChecksumOffset..], JournalRecord.ComputeHeaderChecksum(head, StoreId, start.FileNumber));
                JournalRecord.Frame(record, bodyLength, JournalRecord.SectorSeed(StoreId, start.FileNumber, JournalRecord.GetTransactionId(head)));
            }
            else
            {
                JournalRecord.Frame(record, bodyLength, 0); // wrong trailers everywhere: damage
            }

            using (var file = fs.Open(JournalFiles.PathOf("/j", start.FileNumber), FileOpenMode.OpenExisting))
            {
                file.Write(start.Offset, record);
            }

            var mode = (JournalTailRecovery)random.Next(3);
            JournalReader.Recover(fs, "/j", StoreId, new JournalPosition(1, 0), 1, recovered =>
            {
                foreach (var page in recovered.Pages)
                {
                    if (page.Encoding != JournalPageEncoding.FullImage && page.PageCount <= 8)
                    {
                        try
                        {
                            PageDiff.Apply(page.Bytes.Span, new byte[page.PageCount * Constants.PageSize]);
                        }
                        catch (InvalidDataException)
                        {
                            // reported by the replay as CorruptionException
                        }
                    }
                }
            }, mode);
        });
    }

    [Fact]
    public void Stores_with_mutated_pages_or_records_open_and_read_or_are_refused_as_corruption()
    {
        var seed = TestSeed.Next(output, nameof(Stores_with_mutated_pages_or_records_open_and_read_or_are_refused_as_corruption));
        var golden = FuzzStore.Build();
        Fuzz(seed, Iterations(4_000, share: 0.02), random =>
        {
            var fs = golden.Copy();
            using var release = FuzzStore.ReleaseOnDispose(fs, "/store", "/store/journal");
            if (random.Next(2) == 0)
            {
                golden.MutatePage(fs, random);
            }
            else
            {
                golden.MutateRecord(fs, random);
            }

            FuzzStore.OpenAndReadEverything(fs, (JournalTailRecovery)random.Next(3));
        }, integrityChecker: true);
    }

    /// <summary>A journal of records of every kind: full images, LZ4-compressed payloads, diffs against the previous version and against zeros, across two files.</summary>
    private static (Dictionary<long, byte[]> Files, List<(JournalPosition Start, long Length)> Records) BuildJournal(int seed)
    {
        var random = new Random(seed);
        using var fs = new InMemoryFileSystem(16 << 20);
        var records = new List<(JournalPosition, long)>();
        using (var writer = new JournalWriter(fs, "/j", StoreId, new JournalPosition(1, 0), 1, 128 * 1024))
        {
            for (var tx = 1; tx <= 24; tx++)
            {
                var pages = new List<JournalPage>();
                var image = new byte[Constants.PageSize * random.Next(1, 3)];
                if (tx % 3 == 0)
                {
                    image.AsSpan().Fill((byte)tx); // compresses
                }
                else
                {
                    random.NextBytes(image);
                }

                pages.Add(new JournalPage(tx * 10, image));
                var previous = image.ToArray();
                image[random.Next(image.Length)] ^= 0x5A;
                var diff = new byte[image.Length * 2];
                var length = PageDiff.Compute(previous, image, diff);
                if (length > 0)
                {
                    pages.Add(new JournalPage((tx * 10) + 5, diff.AsMemory(0, length).ToArray(), JournalPageEncoding.DiffAgainstPrevious, image.Length / Constants.PageSize));
                }

                var zeros = new byte[image.Length];
                zeros.AsSpan(100, 50).Fill((byte)tx);
                length = PageDiff.ComputeAgainstZeros(zeros, diff);
                if (length > 0)
                {
                    pages.Add(new JournalPage((tx * 10) + 7, diff.AsMemory(0, length).ToArray(), JournalPageEncoding.DiffAgainstZeros, image.Length / Constants.PageSize));
                }
                var location = writer.Append(tx, new byte[64], pages, compress: true, sync: tx % 4 != 0);
                records.Add((location.Start, location.Length));
            }
        }

        var files = JournalFiles.List(fs, "/j").ToDictionary(n => n, n =>
        {
            using var file = fs.Open(JournalFiles.PathOf("/j", n), FileOpenMode.OpenExisting);
            var bytes = new byte[file.Length];
            file.Read(0, bytes);
            return bytes;
        });
        return (files, records);
    }

    /// <summary>Runs <paramref name="iteration"/> with a seeded Random per iteration; anything but the allowed outcomes is a failure naming the seed and the iteration.</summary>
    private void Fuzz(int seed, int iterations, Action<Random> iteration, Type? allowed = null, bool integrityChecker = false)
    {
        var (states, failures) = StateRunner.Run(Enumerable.Range(0, iterations).ToList(), (i, found) =>
        {
            var random = new Random(CrashHarness.StateSeed(seed, "fuzz", i));
            try
            {
                iteration(random);
            }
            catch (Exception e) when (e is CorruptionException or FormatVersionException || e.GetType() == allowed)
            {
                if (e is CorruptionException c && (string.IsNullOrEmpty(c.File) || string.IsNullOrEmpty(c.Reason)))
                {
                    found.Add($"iteration {i} (seed {seed}): a CorruptionException without a file or a reason: {e.Message}");
                }
            }
            catch (FuzzStore.IntegrityViolation) when (integrityChecker)
            {
                // CheckIntegrity's own finding: a structure every reader accepted but that does not add up
            }
            catch (Exception e)
            {
                found.Add($"iteration {i} (seed {seed}): {e.GetType().Name}: {e.Message}\n{e.StackTrace}");
            }

            return 1;
        });

        CrashBudget.Report(output, $"{iterations} mutations", 0, failures);
        Assert.Equal(iterations, states);
    }
}
