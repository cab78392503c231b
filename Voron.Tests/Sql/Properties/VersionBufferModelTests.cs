using System.Buffers.Binary;
using Voron.SqliteVfs.Databases;
using Xunit.Abstractions;

namespace Voron.Tests.Sql.Properties;

/// <summary>
/// WB1–WB3 (Voron.SqliteVfs/Databases/BlockPool.cs): write sets and versions share pooled block
/// buffers, and a buffer goes back to the pool only when no snapshot can read it. This drives a
/// database's state directly — write sets built on the newest state, dropped blocks, truncations,
/// rollbacks, commits whose flush is held back and released at random — while snapshots, a
/// committing writer's among them, are held across many commits, and compares every read of every
/// held snapshot with a model of the file at that snapshot's sequence. A buffer handed out again
/// while a snapshot could still read it shows up as another commit's bytes (or, in Debug builds,
/// as the 0xDB a returned buffer is filled with).
/// </summary>
public sealed class VersionBufferModelTests(ITestOutputHelper output)
{
    private const int BlockSize = 8192;
    private const int MaxBlocks = 12;

    [Fact]
    public async Task Snapshots_held_across_commits_read_their_model_state_while_block_buffers_are_reused()
    {
        var seed = TestSeed.Next(output, nameof(Snapshots_held_across_commits_read_their_model_state_while_block_buffers_are_reused));
        var random = new Random(seed);
        var gate = new GatedFileSystem();
        using var store = new SqlStore(gate);
        var database = new DatabaseState(store.Environment, "model.db");
        var states = new Dictionary<long, byte[]> { [0] = [] }; // the file's bytes after each sequence
        var held = new List<Snapshot>();
        var versions = new List<DatabaseVersion>();
        var writes = new List<Task>();
        try
        {
            for (var step = 0; step < 600; step++)
            {
                switch (random.Next(12))
                {
                    case < 5:
                        Commit(rollback: false);
                        break;
                    case 5:
                        Commit(rollback: true);
                        break;
                    case 6:
                        held.Add(random.Next(2) == 0 ? database.TakeNewest() : database.TakeDurable());
                        break;
                    case 7 when held.Count > 0:
                        var index = random.Next(held.Count);
                        held[index].Dispose();
                        held.RemoveAt(index);
                        break;
                    case 8:
                        if (random.Next(2) == 0)
                        {
                            gate.Close(); // commits from here on stay in flight
                        }
                        else
                        {
                            gate.Open();
                        }

                        break;
                    default:
                        foreach (var snapshot in held)
                        {
                            Check(snapshot, step);
                        }

                        break;
                }

                if (held.Count > 0)
                {
                    Check(held[random.Next(held.Count)], step);
                }
            }

            gate.Open();
            await Task.WhenAll(writes);
            await Task.WhenAll(versions.Select(v => v.Durable));
            foreach (var snapshot in held)
            {
                Check(snapshot, -1);
            }
        }
        finally
        {
            gate.Open();
            foreach (var snapshot in held)
            {
                snapshot.Dispose();
            }
        }

        // Every version retires once its commit completed and nothing holds it (no hold leaks),
        // and buffers were in fact handed out again.
        Assert.All(versions, v => Assert.True(v.IsRetired, $"version {v.Sequence} is still held"));
        var (allocated, reused, returned) = database.Blocks.Counts;
        output.WriteLine($"{versions.Count} versions; buffers allocated {allocated}, reused {reused}, returned {returned}");
        Assert.True(reused > 0, "no buffer was reused: the test did not exercise the pool");
        Assert.Equal(allocated + reused, returned); // every buffer came back

        void Commit(bool rollback)
        {
            var snapshot = database.TakeNewest(); // V4: a writer builds on the newest submitted state
            var content = (byte[])states[snapshot.HeadSequence].Clone();
            var set = new WriteSet(snapshot.Length, database.Blocks);
            for (var i = random.Next(1, 6); i > 0; i--)
            {
                switch (random.Next(6))
                {
                    case 0 when content.Length > BlockSize:
                        var size = Math.Min(content.Length - 1, random.Next(1, content.Length / BlockSize) * BlockSize + (random.Next(3) == 0 ? random.Next(1, BlockSize) : 0));
                        set.Truncate(size, snapshot.ReadBlock);
                        Array.Resize(ref content, size);
                        break;
                    case 1 when content.Length >= BlockSize:
                        // A block written back as it was: DropUnchanged gives its buffer back.
                        var same = random.Next(content.Length / BlockSize);
                        Write(set, snapshot, ref content, (long)same * BlockSize, content.AsSpan(same * BlockSize, BlockSize).ToArray());
                        break;
                    case 2:
                        var bytes = new byte[random.Next(1, 600)];
                        random.NextBytes(bytes);
                        Write(set, snapshot, ref content, random.NextInt64(MaxBlocks * BlockSize - bytes.Length), bytes);
                        break;
                    default:
                        var block = new byte[BlockSize];
                        random.NextBytes(block);
                        Write(set, snapshot, ref content, (long)random.Next(MaxBlocks) * BlockSize, block);
                        break;
                }
            }

            if (rollback)
            {
                set.Discard(); // V10
                snapshot.Dispose();
                return;
            }

            set.DropUnchanged(snapshot);
            if (set.IsEmpty)
            {
                snapshot.Dispose();
                return;
            }

            var version = database.Submit(set, snapshot, out var write);
            var own = snapshot.With(version);
            if (write != null)
            {
                writes.Add(Task.Factory.StartNew(write.Run, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)); // blocks while the gate is closed
            }

            // V7: the change counter, at 24 and 92 of block 0 (as far as the file reaches).
            Span<byte> counter = stackalloc byte[4];
            BinaryPrimitives.WriteUInt32BigEndian(counter, (uint)version.Sequence);
            for (var k = 0; k < 4; k++)
            {
                foreach (var at in (int[])[24 + k, 92 + k])
                {
                    if (at < content.Length)
                    {
                        content[at] = counter[k];
                    }
                }
            }

            states[version.Sequence] = content;
            versions.Add(version);
            if (random.Next(3) == 0)
            {
                held.Add(own); // the committing connection goes on reading (a statement still open)
            }
            else
            {
                own.Dispose();
            }
        }

        void Check(Snapshot snapshot, int step)
        {
            var expected = states[snapshot.HeadSequence];
            Assert.Equal(expected.Length, snapshot.Length);
            var actual = new byte[BlockSize];
            for (var block = 0; (long)block * BlockSize < expected.Length; block++)
            {
                snapshot.ReadBlock(block, actual);
                var length = (int)Math.Min(BlockSize, expected.Length - ((long)block * BlockSize));
                if (!actual.AsSpan(0, length).SequenceEqual(expected.AsSpan(block * BlockSize, length)))
                {
                    Assert.Fail($"step {step}: block {block} of the snapshot at sequence {snapshot.HeadSequence} is not the model's (first byte read 0x{actual[0]:X2})");
                }
            }
        }
    }

    /// <summary>As DatabaseFile.Write: into the set block by block, the model alongside.</summary>
    private static void Write(WriteSet set, Snapshot snapshot, ref byte[] content, long offset, byte[] source)
    {
        for (var done = 0; done < source.Length;)
        {
            var position = offset + done;
            var inBlock = (int)(position % BlockSize);
            var count = Math.Min(source.Length - done, BlockSize - inBlock);
            var buffer = set.Modify(position / BlockSize, whole: count == BlockSize, snapshot.ReadBlock);
            source.AsSpan(done, count).CopyTo(buffer.AsSpan(inBlock));
            done += count;
        }

        set.Extend(offset + source.Length);
        if (content.Length < offset + source.Length)
        {
            Array.Resize(ref content, (int)(offset + source.Length));
        }

        source.CopyTo(content.AsSpan((int)offset));
    }
}
