using Voron.Backup;
using Voron.PageFiles;
using Voron.Tests.Core.Backup;

namespace Voron.Tests.Core.Properties;

/// <summary>
/// Backups (plain and compacted), journal archiving, flushes, reopens, compactions and
/// point-in-time restores in a random order, against a model of the store after every
/// transaction. Every restore, to a random transaction, a random time or as far as the archive
/// goes, gives exactly the model's state at its target, or is refused with the error that names
/// why (before the snapshot, past the archive's end, past a compaction, past a file missing from
/// the archive, a compacted backup, a time it cannot place) — and only when that reason holds
/// (JA5, JA6, JA9, JA10, BM5). Commit and compaction times are checked against the clock read
/// around them, so a time target's expected transaction does not rest on the store's own word.
/// 400 steps by default (a few seconds); VORON_SOAK scales them; the seed is printed and
/// VORON_SEED replays it.
/// </summary>
public sealed class PointInTimeRestoreModelTests(ITestOutputHelper output)
{
    private const string Store = "/store";
    private const string Archive = "/archive";
    private const long MaxDataFileSize = 64L << 20;

    private sealed record Taken(string Directory, BackupManifest Manifest);

    /// <summary>One transaction of the model: what the store held after it, when it committed (0 = no record of it: a compaction's), and which store wrote it.</summary>
    private sealed record Committed(StoreContents State, long CommitTime, ulong StoreId);

    private sealed class Run(int seed, ITestOutputHelper output)
    {
        private readonly Random _random = new(seed);
        private readonly InMemoryFileSystem _fs = new(reservePerFile: MaxDataFileSize);
        private readonly Dictionary<long, Committed> _model = [];
        private readonly Dictionary<ulong, long> _compactedAt = []; // store id -> its last transaction, for stores that were compacted
        private readonly Dictionary<ulong, long> _firstOf = []; // a compacted store's id -> the transaction it starts from (no record of it)
        private readonly Dictionary<ulong, long> _compactedUnixMs = []; // a compacted store's id -> when its note says it was made
        private readonly SortedDictionary<string, int> _reasons = new(StringComparer.Ordinal); // refusals by the reason they named
        private int _gaps;
        private readonly List<Taken> _backups = [];
        private StoreContents _contents = new();
        private StorageEnvironment _env = null!;
        private int _restores;
        private int _refusals;
        private readonly int[] _byKind = new int[3]; // restores that gave their target: as far as it goes, by id, by time
        private int _step;

        public string Where => $"seed {seed}, step {_step}";

        private StorageEnvironmentOptions Options()
        {
            var options = StorageEnvironmentOptions.ForFileSystem(Store, _fs);
            options.BackgroundFlush = false;
            options.JournalFileSize = 16 << 10;
            options.MaxDataFileSize = MaxDataFileSize;
            options.JournalArchiveDirectory = Archive;
            return options;
        }

        public async Task Go(int steps)
        {
            _env = StorageEnvironment.Open(Options());
            Remember(); // the new store's transaction 0
            try
            {
                for (_step = 0; _step < steps; _step++)
                {
                    var dice = _random.Next(100);
                    switch (dice)
                    {
                        case < 50: Commit(); break;
                        case < 62: _env.FlushToDataFile(); break;
                        case < 70: await Backup(); break;
                        case < 74: Reopen(); break;
                        case < 77: Compact(); break;
                        default: await Restore(_random.Next(_backups.Count + 1) - 1); break;
                    }
                }

                for (var i = 0; i < _backups.Count; i++)
                {
                    await Restore(i, final: true);
                }
            }
            finally
            {
                _env.Dispose();
            }

            output.WriteLine($"seed {seed}: {steps} steps, {_backups.Count} backups, {_compactedAt.Count} compactions, {_restores} restores ({_gaps} from an " +
                $"archive missing a file; reached: {_byKind[1]} by id, {_byKind[2]} by time, {_byKind[0]} as far as the archive goes), last tx {_model.Keys.Max()}");
            output.WriteLine($"{_refusals} refused, naming: {string.Join(", ", _reasons.Select(r => $"\"{r.Key}\" {r.Value}"))}");
        }

        private void Commit()
        {
            if (_random.Next(3) == 0)
            {
                Thread.Sleep(_random.Next(1, 4)); // commit times a few milliseconds apart now and then
            }

            var last = _env.LastCommittedTransactionId;
            var before = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            using (var tx = _env.BeginWrite())
            {
                var tree = tx.CreateTree(StoreContents.TreeName);
                for (var op = _random.Next(1, 5); op > 0; op--)
                {
                    var key = $"k{_random.Next(80):D3}";
                    switch (_random.Next(10))
                    {
                        case 0:
                            tree.Delete(Encoding.UTF8.GetBytes(key));
                            _contents.Entries.Remove(key);
                            break;
                        case 1:
                            var block = new byte[PageFile.BlockSize];
                            _random.NextBytes(block);
                            var offset = (long)_random.Next(6) * PageFile.BlockSize;
                            tx.CreatePageFile(StoreContents.PageFileName).Write(offset, block);
                            _contents.WritePageFile(offset, block);
                            break;
                        default:
                            var value = new byte[_random.Next(10) == 0 ? _random.Next(9000, 20000) : _random.Next(1, 600)];
                            _random.NextBytes(value);
                            tree.Put(Encoding.UTF8.GetBytes(key), value);
                            _contents.Entries[key] = value;
                            break;
                    }
                }

                tx.Commit();
            }

            var after = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            if (_env.LastCommittedTransactionId == last)
            {
                return; // a write that changed nothing (deletes of missing keys) commits no transaction
            }

            var previous = _model[last].StoreId == _env.StoreId ? _model[last].CommitTime : 0;
            var committed = Remember();

            // The writer stamps the clock's time, never earlier than its last record's (so a clock
            // stepped back cannot fail this).
            Assert.True(committed.CommitTime >= before && committed.CommitTime <= Math.Max(after, previous),
                $"{Where}: a commit between {before} and {after} (Unix ms) recorded commit time {committed.CommitTime}");
        }

        /// <summary>The model after the store's last transaction, with its commit time as the store knows it (checked against the clock by the caller).</summary>
        private Committed Remember()
        {
            using var read = _env.BeginRead();
            Assert.False(_model.ContainsKey(read.Id), $"{Where}: a new transaction reused id {read.Id}");
            var committed = new Committed(_contents.Clone(), read.Low.Committed.CommitTime, _env.StoreId);
            _model[read.Id] = committed;
            return committed;
        }

        private async Task Backup()
        {
            var directory = $"/backups/{_backups.Count}";
            var compact = _random.Next(10) == 0;
            await _env.BackupAsync(directory, new BackupOptions { Compact = compact, Verify = _random.Next(2) == 0 });
            var manifest = BackupManifest.Read(_fs, directory);
            Assert.True(manifest.SnapshotTxId == _env.LastCommittedTransactionId && manifest.SourceStoreId == _env.StoreId && manifest.Compacted == compact, Where);

            // BM5: the snapshot's commit time, or 0 when no record of it exists (a compacted store's
            // first transaction, a new store's transaction 0).
            var recorded = _firstOf.TryGetValue(manifest.SourceStoreId, out var first) && first == manifest.SnapshotTxId ? 0 : _model[manifest.SnapshotTxId].CommitTime;
            Assert.True(manifest.SnapshotCommitTime == recorded,
                $"{Where}: backup {directory} says its snapshot (tx {manifest.SnapshotTxId}) committed at {manifest.SnapshotCommitTime}, the model says {recorded}");

            _backups.Add(new Taken(directory, manifest));
        }

        private void Reopen()
        {
            _env.Dispose();
            _env = StorageEnvironment.Open(Options());
            Assert.True(_model.ContainsKey(_env.LastCommittedTransactionId), $"{Where}: reopened at tx {_env.LastCommittedTransactionId}");
            AssertStoreHoldsTheModel("reopened");
        }

        private void AssertStoreHoldsTheModel(string what)
        {
            using var read = _env.BeginRead();
            StoreContents.AssertEqual(_contents, StoreContents.Read(read), $"{Where}: the store {what} (tx {read.Id})");
        }

        private void Compact()
        {
            var before = _env.StoreId;
            var last = _env.LastCommittedTransactionId;
            _env.Dispose();
            var started = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            StorageEnvironment.Compact(Options(), null, default); // CompactAsync refuses an in-memory store; this file system outlives it
            var ended = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            _env = StorageEnvironment.Open(Options());
            Assert.True(_env.StoreId != before && _env.LastCommittedTransactionId >= last, $"{Where}: compacted store {_env.StoreId:X16} at tx {_env.LastCommittedTransactionId}");

            // JA9: the note names the old store's last transaction and the compacted store's first.
            var notes = ArchivedCompaction.List(_fs, Archive).Where(n => n.SourceStoreId == before).ToList();
            Assert.True(notes.Count == 1 && notes[0].CopyStoreId == _env.StoreId && notes[0].SourceTransaction == last &&
                notes[0].CopyTransaction == _env.LastCommittedTransactionId && notes[0].CompactedUnixMs >= started && notes[0].CompactedUnixMs <= ended,
                $"{Where}: a compaction of store {before:X16} at tx {last} between {started} and {ended} (Unix ms) left notes [{string.Join("; ", notes)}]");
            _compactedAt[before] = last;
            _firstOf[_env.StoreId] = _env.LastCommittedTransactionId;
            _compactedUnixMs[_env.StoreId] = notes[0].CompactedUnixMs;
            _model.TryAdd(_env.LastCommittedTransactionId, new Committed(_contents.Clone(), 0, _env.StoreId)); // CP5: a later id only if the copy took more transactions
            AssertStoreHoldsTheModel("compacted");
        }

        /// <summary>
        /// JA10 as the model sees it: when the backup's snapshot committed, or for a compacted
        /// store's first transaction (no record of it) when the compaction made it; 0 when nothing
        /// says (a new store's transaction 0).
        /// </summary>
        private long SnapshotTime(BackupManifest manifest) =>
            _firstOf.TryGetValue(manifest.SourceStoreId, out var first) && first == manifest.SnapshotTxId
                ? _compactedUnixMs[manifest.SourceStoreId]
                : _model[manifest.SnapshotTxId].CommitTime;

        /// <summary>
        /// The archive's records of the backup's store after its snapshot, read straight from the
        /// files (the oracle's view of what the archive holds; what each record holds is checked by
        /// the restores against the model): consecutive transactions from S + 1, up to the first
        /// file missing, and never past the store's compaction note.
        /// </summary>
        private List<(long Tx, long CommitTime, long File)> Archived(BackupManifest manifest, string archive)
        {
            var note = ArchivedCompaction.List(_fs, archive).FirstOrDefault(n => n.SourceStoreId == manifest.SourceStoreId);
            var records = new List<(long, long, long)>();
            var expected = manifest.SnapshotTxId + 1;
            var sector = new byte[JournalRecord.SectorSize];
            var number = manifest.JournalFile;
            var offset = manifest.JournalOffset;
            for (; number <= (note?.SourceLastFile ?? long.MaxValue); number++, offset = 0)
            {
                var path = JournalFiles.PathOf(archive, number);
                if (!_fs.FileExists(path))
                {
                    break;
                }

                using var file = _fs.Open(path, FileOpenMode.OpenExisting);
                var found = false;
                while (offset + sector.Length <= file.Length && file.Read(offset, sector) == sector.Length &&
                       JournalRecordHeader.TryRead(sector, new RecordBinding(manifest.SourceStoreId, number), out var header) && header.TransactionId == expected)
                {
                    records.Add((expected++, header.CommitTime, number));
                    offset += header.RecordSize;
                    found = true;
                }

                if (!found && offset == 0)
                {
                    break;
                }
            }

            return records;
        }

        /// <summary>
        /// Now and then a copy of the archive without one of the backup's store's files that a
        /// later file of it (or its compaction note) shows was there: a gap the restore must refuse
        /// to cross, and only to cross (JA6). Null when the store's archived log has no such file.
        /// </summary>
        private (string Archive, long Missing)? ArchiveWithGap(BackupManifest manifest)
        {
            var note = ArchivedCompaction.List(_fs, Archive).FirstOrDefault(n => n.SourceStoreId == manifest.SourceStoreId);
            var files = JournalFiles.List(_fs, Archive).Where(n => n >= manifest.JournalFile && n <= (note?.SourceLastFile ?? long.MaxValue)).ToList();
            var candidates = files.Where(n => note != null || n < files[^1]).ToList();
            if (candidates.Count == 0)
            {
                return null;
            }

            var missing = candidates[_random.Next(candidates.Count)];
            var copy = $"/archive-gap/{_restores}";
            _fs.CreateDirectory(copy);
            foreach (var path in _fs.ListFiles(Archive, "*"))
            {
                var name = Path.GetFileName(path);
                if (name == Path.GetFileName(JournalFiles.PathOf(Archive, missing)))
                {
                    continue;
                }

                using var from = _fs.Open(Path.Combine(Archive, name), FileOpenMode.OpenExisting);
                using var to = _fs.Open(Path.Combine(copy, name), FileOpenMode.CreateNew);
                var bytes = new byte[from.Length];
                Assert.Equal(bytes.Length, from.Read(0, bytes));
                to.Write(0, bytes);
            }

            return (copy, missing);
        }

        private async Task Restore(int which, bool final = false)
        {
            if (which < 0 || _backups.Count == 0)
            {
                return;
            }

            var backup = _backups[which];
            var manifest = backup.Manifest;
            var s = manifest.SnapshotTxId;
            var archived = Archived(manifest, Archive);
            var archivedLast = archived.Count > 0 ? archived[^1].Tx : s;
            var compacted = _compactedAt.TryGetValue(manifest.SourceStoreId, out var compactedLast);
            if (compacted)
            {
                // JA9: the compaction archived every commit of the store before it, the live journal's too.
                Assert.True(archivedLast == compactedLast, $"{Where}: backup {backup.Directory}'s store was compacted after tx {compactedLast}, its archive ends at {archivedLast}");
            }

            foreach (var (tx, time, _) in archived)
            {
                Assert.True(_model[tx].CommitTime == time && _model[tx].StoreId == manifest.SourceStoreId,
                    $"{Where}: archived tx {tx} of store {manifest.SourceStoreId:X16} committed at {time}, the model says {_model[tx].CommitTime} by store {_model[tx].StoreId:X16}");
            }

            var archive = Archive;
            long? missing = null;
            if (!final && _random.Next(6) == 0 && ArchiveWithGap(manifest) is { } gap)
            {
                (archive, missing) = gap;
                archived = archived.Where(a => a.File < gap.Missing).ToList(); // the replay cannot cross the gap
                archivedLast = archived.Count > 0 ? archived[^1].Tx : s;
                _gaps++;
            }

            // JA6: what ends the store's log as this archive holds it.
            var end = missing != null ? $"journal file {missing} is missing"
                : compacted ? $"compacted after transaction {archivedLast}"
                : $"ends at transaction {archivedLast}";
            var options = new RestoreOptions { JournalArchiveDirectory = archive };
            var kind = final ? 0 : _random.Next(3);
            string what;
            long? expected;
            string refusal;
            if (kind == 1)
            {
                // Around the snapshot, anywhere in the archived log, or a little past its end.
                var target = _random.Next(3) == 0 ? s - 2 + _random.NextInt64(archivedLast - s + 6) : s + _random.NextInt64(archivedLast - s + 1);
                options.ToTransactionId = target;
                what = $"tx {target}";
                expected = target >= s && target <= archivedLast ? target : null;
                refusal = target < s ? "before the backup's snapshot" : end;
            }
            else if (kind == 2)
            {
                var t = PickTime(manifest, archived);
                options.ToTime = DateTimeOffset.FromUnixTimeMilliseconds(t);
                what = $"time {t}";
                (expected, refusal) = ExpectedAtTime(manifest, archived, end, missing != null, t);
            }
            else
            {
                what = "no target";
                expected = missing == null ? archivedLast : null;
                refusal = end;
            }

            if (manifest.Compacted)
            {
                expected = null;
                refusal = "is compacted (BackupOptions.Compact)";
            }

            var destination = $"/restored/{_restores++}";
            var context = $"{Where}: restoring {backup.Directory} (snapshot {s}, archive {archive} to {archivedLast}) to {what}";
            RestoreResult result;
            try
            {
                result = await StorageEnvironment.RestoreCoreAsync(_fs, backup.Directory, destination, options, MaxDataFileSize, CancellationToken.None);
            }
            catch (Exception e) when (e is ArgumentException or InvalidOperationException or CorruptionException)
            {
                _refusals++;
                Assert.True(expected == null, $"{context} was refused, expected tx {expected}: {e}");
                Assert.True(e.Message.Contains(refusal, StringComparison.Ordinal), $"{context} was refused without naming \"{refusal}\": {e}");
                Assert.False(_fs.FileExists($"{destination}/voron.data"), $"{context}: a refused restore left files");
                var reason = refusal.StartsWith("journal file", StringComparison.Ordinal) ? "is missing"
                    : refusal.StartsWith("ends at", StringComparison.Ordinal) ? "ends at transaction"
                    : refusal.StartsWith("compacted after", StringComparison.Ordinal) ? "compacted after transaction"
                    : refusal;
                _reasons[reason] = _reasons.GetValueOrDefault(reason) + 1;
                return;
            }

            Assert.True(expected == result.TransactionId, $"{context} gave tx {result.TransactionId}, expected {(expected?.ToString() ?? $"a refusal naming \"{refusal}\"")}");
            _byKind[kind]++;
            var restoredOptions = StorageEnvironmentOptions.ForFileSystem(destination, _fs);
            restoredOptions.MaxDataFileSize = MaxDataFileSize;
            using var restored = StorageEnvironment.Open(restoredOptions);
            Assert.True(restored.LastCommittedTransactionId == result.TransactionId, context);
            using var read = restored.BeginRead();
            StoreContents.AssertEqual(_model[result.TransactionId].State, StoreContents.Read(read), $"{context} (tx {result.TransactionId})");
        }

        /// <summary>A time around a commit of the backup's store (exact, a millisecond before or after), before its snapshot, at its compaction, or now.</summary>
        private long PickTime(BackupManifest manifest, List<(long Tx, long CommitTime, long File)> archived)
        {
            var times = _model.Where(m => m.Value.StoreId == manifest.SourceStoreId && m.Value.CommitTime > 0).Select(m => m.Value.CommitTime).ToList();
            var note = ArchivedCompaction.List(_fs, Archive).FirstOrDefault(n => n.SourceStoreId == manifest.SourceStoreId || n.CopyStoreId == manifest.SourceStoreId);
            var snapshotTime = SnapshotTime(manifest);
            switch (_random.Next(6))
            {
                case 0:
                    return DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() + 1;
                case 1 when note != null:
                    return note.CompactedUnixMs + _random.Next(-1, 2);
                case 2 when snapshotTime > 0:
                    return snapshotTime - _random.Next(0, 3);
                default:
                    var pool = archived.Count > 1 && _random.Next(3) > 0 ? archived.SkipLast(1).Select(a => a.CommitTime).ToList() : times;
                    return pool.Count == 0 ? DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() : pool[_random.Next(pool.Count)] + _random.Next(-1, 2);
            }
        }

        /// <summary>
        /// JA10 as the model sees it: the state at time t is the last transaction of the backup's
        /// store committed by t (the snapshot if none after it was). A time before the snapshot is
        /// refused; the restore reaches t when the archive (up to a gap) holds a record committed
        /// after it, or, at a compaction, when the compacted store committed nothing by t; else it
        /// is refused naming what ends the log. A snapshot whose time nothing tells (a new store's
        /// transaction 0) is placed before t only by an archived commit after it made by t.
        /// </summary>
        private (long? Expected, string Refusal) ExpectedAtTime(BackupManifest manifest, List<(long Tx, long CommitTime, long File)> archived, string end, bool gap,
            long t)
        {
            var s = manifest.SnapshotTxId;
            var snapshotTime = SnapshotTime(manifest);
            if (snapshotTime > 0 && t < snapshotTime)
            {
                return (null, "before the backup's snapshot");
            }

            var expected = s;
            foreach (var (tx, time, _) in archived)
            {
                if (time > t)
                {
                    break;
                }

                expected = tx;
            }

            var later = archived.Any(a => a.CommitTime > t);
            var note = ArchivedCompaction.List(_fs, Archive).FirstOrDefault(n => n.SourceStoreId == manifest.SourceStoreId);
            if (!later && !gap && note != null)
            {
                Assert.True(expected == note.SourceTransaction, $"{Where}: the archive of store {manifest.SourceStoreId:X16} ends at {expected}, its note at {note.SourceTransaction}");

                // Nothing of the compacted store committed by t: t is before the compaction, or
                // before the compacted store's first commit (when that is archived).
                var firstCopyCommit = _model.GetValueOrDefault(note.CopyTransaction + 1);
                var firstArchived = firstCopyCommit != null && firstCopyCommit.StoreId == note.CopyStoreId &&
                    _fs.FileExists(JournalFiles.PathOf(Archive, note.CopyFirstFile));
                later = t < note.CompactedUnixMs || firstArchived && firstCopyCommit!.CommitTime > t;
                Assert.False(later && _model.Values.Any(m => m.StoreId == note.CopyStoreId && m.CommitTime > 0 && m.CommitTime <= t),
                    $"{Where}: the compacted store committed by {t}, yet the archive says it did not");
            }

            if (!later)
            {
                return (null, end);
            }

            if (snapshotTime == 0 && !(archived.Count > 0 && archived[0].CommitTime <= t))
            {
                return (null, "cannot be told");
            }

            return (expected, "");
        }
    }

    [Fact]
    public async Task Restores_in_any_order_with_backups_archiving_and_compactions_give_the_model_at_their_target_or_a_refusal_naming_why()
    {
        var seed = TestSeed.Next(output, nameof(Restores_in_any_order_with_backups_archiving_and_compactions_give_the_model_at_their_target_or_a_refusal_naming_why));
        var run = new Run(seed, output);
        try
        {
            await run.Go(steps: CrashBudget.Count(400, 0.002));
        }
        catch (Exception)
        {
            output.WriteLine($"failed at {run.Where} (replay with VORON_SEED={seed})");
            throw;
        }
    }
}
