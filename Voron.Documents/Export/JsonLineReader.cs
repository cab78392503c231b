using System.Buffers;

namespace Voron.Documents.Export;

/// <summary>
/// Splits a stream into lines at '\n' (a '\r' before it is dropped), any length up to
/// <c>maxLineBytes</c>: a longer line is skipped without being buffered whole and reported as
/// <see cref="TooLong"/>. Lines are spans into one pooled buffer, valid until the next
/// <see cref="NextAsync"/>.
/// </summary>
internal sealed class JsonLineReader(Stream source, int maxLineBytes) : IDisposable
{
    private const int ReadSize = 1 << 20;

    private byte[] _buffer = ArrayPool<byte>.Shared.Rent(ReadSize);
    private int _start;
    private int _end;
    private int _lineStart;
    private int _lineLength;
    private bool _endOfStream;

    /// <summary>The current line's number, from 1.</summary>
    public long LineNumber { get; private set; }

    /// <summary>Whether the current line was longer than the limit (its bytes are gone; <see cref="Line"/> is empty).</summary>
    public bool TooLong { get; private set; }

    /// <summary>The current line, without its line break.</summary>
    public ReadOnlySpan<byte> Line => _buffer.AsSpan(_lineStart, _lineLength);

    /// <summary>Moves to the next line; false at the end of the stream.</summary>
    public async ValueTask<bool> NextAsync(CancellationToken cancellationToken)
    {
        TooLong = false;
        var scanned = _start;
        while (true)
        {
            var newline = _buffer.AsSpan(scanned, _end - scanned).IndexOf((byte)'\n');
            if (newline >= 0)
            {
                SetLine(_start, scanned + newline - _start);
                _start = scanned + newline + 1;
                return true;
            }

            scanned = _end;
            if (_endOfStream)
            {
                if (_end == _start)
                {
                    return false;
                }

                SetLine(_start, _end - _start); // the last line, without a line break
                _start = _end;
                return true;
            }

            if (_end - _start > maxLineBytes)
            {
                await SkipRestOfLineAsync(cancellationToken).ConfigureAwait(false);
                return true;
            }

            if (_start > 0)
            {
                _buffer.AsSpan(_start, _end - _start).CopyTo(_buffer);
                scanned -= _start;
                _end -= _start;
                _start = 0;
            }

            if (_buffer.Length - _end < ReadSize / 4)
            {
                var larger = ArrayPool<byte>.Shared.Rent(Math.Max(_buffer.Length * 2, _end + ReadSize));
                _buffer.AsSpan(0, _end).CopyTo(larger);
                ArrayPool<byte>.Shared.Return(_buffer);
                _buffer = larger;
            }

            var read = await source.ReadAsync(_buffer.AsMemory(_end), cancellationToken).ConfigureAwait(false);
            if (read == 0)
            {
                _endOfStream = true;
            }

            _end += read;
        }
    }

    private void SetLine(int start, int length)
    {
        LineNumber++;
        if (length > 0 && _buffer[start + length - 1] == (byte)'\r')
        {
            length--;
        }

        _lineStart = start;
        _lineLength = length;
    }

    private async ValueTask SkipRestOfLineAsync(CancellationToken cancellationToken)
    {
        LineNumber++;
        TooLong = true;
        _lineStart = _lineLength = 0;
        while (true)
        {
            _start = _end = 0;
            var read = await source.ReadAsync(_buffer.AsMemory(0, ReadSize), cancellationToken).ConfigureAwait(false);
            if (read == 0)
            {
                _endOfStream = true;
                return;
            }

            _end = read;
            var newline = _buffer.AsSpan(0, read).IndexOf((byte)'\n');
            if (newline >= 0)
            {
                _start = newline + 1;
                return;
            }
        }
    }

    public void Dispose()
    {
        ArrayPool<byte>.Shared.Return(_buffer);
        _buffer = [];
    }
}
