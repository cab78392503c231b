namespace Voron.Testing.Crash;

/// <summary>
/// Decides, for one power loss, the fate of every unsynced change: a <see cref="DamageModel"/>
/// and a seed, so the same policy over the same machine state always produces the same disk.
/// </summary>
internal sealed class PowerLossPolicy
{
    private readonly Random _random;
    private long _cut = long.MaxValue;

    public PowerLossPolicy(DamageModel model, int seed)
    {
        Model = model;
        Seed = seed;
        _random = new Random(seed);
    }

    public DamageModel Model { get; }

    public int Seed { get; }

    public int SectorSize => Model == DamageModel.TornSectors4K ? 4096 : 512;

    /// <summary>
    /// The files in which <see cref="DamageModel.GarbageSectors"/> may leave random bytes; in the
    /// others it tears like <see cref="DamageModel.TornSectors"/>. By default every file but the
    /// data file: journal records hold page diffs, so replay repairs a data-file page whose
    /// sectors are old, new or a mix of the two, but not one holding bytes that were never
    /// written — such a page is detected by its checksum, not repaired (the hardware assumption
    /// in docs/durability.md; GarbageSectorTests checks that it is always detected).
    /// </summary>
    public Predicate<string> GarbageIn { get; init; } = path => !path.EndsWith("/voron.data", StringComparison.Ordinal) && !IsJournal(path);

    /// <summary>
    /// The files in which a torn sector may itself be split (<see cref="DamageModel.TornBytes"/>,
    /// and garbage, which breaks sector atomicity too); in the others every 512-byte sector of a
    /// torn write is whole old or whole new. By default every file but the journal's: the default
    /// <see cref="JournalTailRecovery.DiscardTornWrite"/> assumes the disk writes journal sectors
    /// whole (that is how it tells a torn write from rot), and reports a split sector as damage.
    /// JournalSectorTests tears and garbles journal sectors with this switched on and checks each
    /// recovery mode.
    /// </summary>
    public Predicate<string> SubSectorDamageIn { get; init; } = path => !IsJournal(path);

    /// <summary>Whether <paramref name="path"/> is a journal file (or a spare of format version 1).</summary>
    public static bool IsJournal(string path) => path.Contains("/journal/", StringComparison.Ordinal);

    public static IReadOnlyList<DamageModel> AllModels { get; } = Enum.GetValues<DamageModel>();

    /// <summary>A policy with a model picked by <paramref name="seed"/>.</summary>
    public static PowerLossPolicy Random(int seed) => new(AllModels[(int)((uint)seed % (uint)AllModels.Count)], seed);

    public override string ToString() => $"{Model} (policy seed {Seed})";

    /// <summary>Called once before any decision, with the sequence numbers of every unsynced change.</summary>
    public void Prepare(IEnumerable<long> pendingSequences)
    {
        if (Model == DamageModel.PrefixInTime)
        {
            var sorted = pendingSequences.Order().ToList();
            var index = _random.Next(sorted.Count + 1);
            _cut = index == sorted.Count ? long.MaxValue : sorted[index];
        }
    }

    public WriteFate ChooseWrite(long sequence) => Model switch
    {
        DamageModel.KeepAll => WriteFate.Keep,
        DamageModel.DropAll => WriteFate.Drop,
        DamageModel.KeepOrDrop => _random.Next(2) == 0 ? WriteFate.Keep : WriteFate.Drop,
        DamageModel.PrefixInTime => sequence < _cut ? WriteFate.Keep : sequence == _cut ? WriteFate.Tear : WriteFate.Drop,
        _ => (WriteFate)_random.Next(3),
    };

    public bool KeepResize(long sequence) => Model switch
    {
        DamageModel.KeepAll => true,
        DamageModel.DropAll => false,
        DamageModel.PrefixInTime => sequence <= _cut,
        _ => _random.Next(2) == 0,
    };

    /// <summary>Which of one directory's unsynced changes (in order) survive: a prefix most of the
    /// time (journaling file systems commit metadata in order), an arbitrary subset otherwise.</summary>
    public bool[] ChooseDirectoryChanges(IReadOnlyList<DirectoryChange> changes)
    {
        var survive = new bool[changes.Count];
        switch (Model)
        {
            case DamageModel.KeepAll:
                Array.Fill(survive, true);
                break;
            case DamageModel.DropAll:
                break;
            case DamageModel.PrefixInTime:
                for (var i = 0; i < changes.Count; i++)
                {
                    survive[i] = changes[i].Sequence < _cut || (changes[i].Sequence == _cut && _random.Next(2) == 0);
                }

                break;
            default:
                if (_random.Next(10) < 7)
                {
                    var prefix = _random.Next(changes.Count + 1);
                    for (var i = 0; i < prefix; i++)
                    {
                        survive[i] = true;
                    }
                }
                else
                {
                    for (var i = 0; i < changes.Count; i++)
                    {
                        survive[i] = _random.Next(2) == 0;
                    }
                }

                break;
        }

        return survive;
    }

    /// <summary>Applies <paramref name="write"/> to <paramref name="image"/> of the file at <paramref name="path"/> as the policy decides.</summary>
    public void Apply(FileImage image, PendingWrite write, string path)
    {
        switch (ChooseWrite(write.Sequence))
        {
            case WriteFate.Keep:
                image.Write(write.Offset, write.Bytes);
                break;
            case WriteFate.Tear:
                Tear(image, write, Model == DamageModel.GarbageSectors && GarbageIn(path) && SubSectorDamageIn(path), SubSectorDamageIn(path));
                break;
        }
    }

    /// <summary>Applies <paramref name="resize"/> if the policy keeps it; returns whether it did.</summary>
    public bool Apply(FileImage image, PendingResize resize)
    {
        if (!KeepResize(resize.Sequence))
        {
            return false;
        }

        if (resize.GrowOnly)
        {
            image.Extend(resize.Length);
        }
        else
        {
            image.SetLength(resize.Length);
        }

        return true;
    }

    /// <summary>A torn write: each sector piece it covers is new, old, or (by model) split or garbage.
    /// The file's length covers the whole write (the size update made it; the data did not all).</summary>
    private void Tear(FileImage image, PendingWrite write, bool garbage, bool splitSectors)
    {
        var end = write.Offset + write.Bytes.Length;
        image.Extend(end);
        var position = write.Offset;
        while (position < end)
        {
            var pieceEnd = Math.Min(end, (position / SectorSize + 1) * SectorSize);
            var piece = write.Bytes.AsSpan((int)(position - write.Offset), (int)(pieceEnd - position));
            var choice = _random.Next(Model is DamageModel.TornBytes or DamageModel.GarbageSectors ? 3 : 2);
            if (choice == 0)
            {
                image.Write(position, piece);
            }
            else if (choice == 2 && garbage)
            {
                var random = new byte[piece.Length];
                _random.NextBytes(random);
                image.Write(position, random);
            }
            else if (choice == 2 && Model == DamageModel.TornBytes && splitSectors)
            {
                // No sector atomicity: the new bytes reached the disk up to (or from) a byte boundary.
                var split = _random.Next(piece.Length + 1);
                if (_random.Next(2) == 0)
                {
                    image.Write(position, piece[..split]);
                }
                else
                {
                    image.Write(position + split, piece[split..]);
                }
            }

            // choice 1: the old bytes stay.
            position = pieceEnd;
        }
    }
}
