using System.Buffers;

namespace Voron.Documents.Querying;

/// <summary>
/// The results of one typed query run gathered before they become entities: each result's id,
/// header and JSON (copied once, from its page, into one pooled buffer), so the JSON of many
/// results can be deserialized at once (<see cref="ParallelWork"/>) after the cursor has moved on.
/// Return the buffer with <see cref="Dispose"/>.
/// </summary>
internal sealed class ResultBatch(int expected) : IQueryResultSink, IDisposable
{
    private readonly List<(string Id, byte[] IdBytes, long Version, long Ticks, long ExpiresTicks, int Offset, int Length)> _items = new(expected);
    private byte[] _json = ArrayPool<byte>.Shared.Rent(Math.Max(1024, expected * 1024));
    private int _used;

    public int Count => _items.Count;

    public string Id(int i) => _items[i].Id;

    public byte[] IdBytes(int i) => _items[i].IdBytes;

    public long Version(int i) => _items[i].Version;

    public long Ticks(int i) => _items[i].Ticks;

    public long ExpiresTicks(int i) => _items[i].ExpiresTicks;

    /// <summary>Result <paramref name="i"/>'s JSON, valid until the batch is disposed.</summary>
    public ReadOnlySpan<byte> Json(int i) => _json.AsSpan(_items[i].Offset, _items[i].Length);

    public void Take(QueryCursor cursor, ReadOnlySpan<byte> json)
    {
        if (_json.Length - _used < json.Length)
        {
            var larger = ArrayPool<byte>.Shared.Rent(Math.Max(_json.Length * 2, _used + json.Length));
            _json.AsSpan(0, _used).CopyTo(larger);
            ArrayPool<byte>.Shared.Return(_json);
            _json = larger;
        }

        json.CopyTo(_json.AsSpan(_used));
        _items.Add((cursor.Id, cursor.IdBytes.ToArray(), cursor.Header.Version, cursor.Header.Ticks, cursor.Header.ExpiresTicks, _used, json.Length));
        _used += json.Length;
    }

    /// <summary>Forgets the last result taken (a query cancelled after reading it and before materializing it).</summary>
    public void DropLast()
    {
        var last = _items[^1];
        _used = last.Offset;
        _items.RemoveAt(_items.Count - 1);
    }

    public void Dispose()
    {
        if (_json.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(_json);
            _json = [];
        }
    }
}
