namespace Voron.Paging;

/// <summary>The flush's writes (WritePages): pieces of page images gathered into one write per contiguous stretch of the file.</summary>
internal sealed partial class Pager
{
    /// <summary>Contiguous pieces of images, written as one gathered write when the next piece does not follow on.</summary>
    private sealed class GatheredRun(Pager pager)
    {
        private readonly List<ReadOnlyMemory<byte>> _pieces = [];
        private readonly List<byte[]> _rented = []; // sealed copies (PG7), given back once written
        private long _start;
        private long _end;

        public int Runs { get; private set; }

        public long Bytes { get; private set; }

        public void Add(long offset, ReadOnlyMemory<byte> piece, byte[]? rented = null)
        {
            if (_pieces.Count > 0 && offset != _end)
            {
                Write();
            }

            if (_pieces.Count == 0)
            {
                _start = offset;
                _end = offset;
            }

            _pieces.Add(piece);
            if (rented != null)
            {
                _rented.Add(rented);
            }

            _end += piece.Length;
        }

        public void Write()
        {
            if (_pieces.Count == 0)
            {
                return;
            }

            try
            {
                pager._file.Write(_start, _pieces);
            }
            finally
            {
                foreach (var rented in _rented)
                {
                    Sealing.SealedPages.Return(rented);
                }

                _rented.Clear();
            }

            // PG3: every page whose bytes this write touched is validated again on its next read.
            var first = _start / Constants.PageSize;
            var last = (_end + Constants.PageSize - 1) / Constants.PageSize;
            pager.ForgetVerified(first, checked((int)(last - first)));
            Runs++;
            Bytes += _end - _start;
            _pieces.Clear();
        }
    }
}
