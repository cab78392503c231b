using Voron.Paging;
using Voron.Trees;

namespace Voron.Tests.Core.Trees;

/// <summary>
/// A page store for tree tests: pages are byte arrays in a dictionary, numbered upwards from 1 and
/// never reused. It keeps the <see cref="IPageAccess"/> contract strictly so tree bugs show up:
/// the first <see cref="ModifyPage"/> of a page in a transaction copies it and poisons the old
/// copy (a span kept from <see cref="GetPage"/> then reads garbage, as it would over a real
/// store's remapped page); freed pages are poisoned and unreadable; frees must name a whole run.
/// </summary>
internal sealed class DictionaryPageAccess : IPageAccess
{
    public const byte Poison = 0xDB;

    private readonly Dictionary<long, byte[]> _pages = [];
    private readonly Dictionary<long, int> _runs = [];
    private readonly HashSet<long> _freed = [];
    private readonly HashSet<long> _writableThisTransaction = [];
    private long _nextPage = 1;

    public bool IsWritable { get; set; } = true;

    public string DataFilePath => "memory://tree-tests/data";

    /// <summary>Pages currently allocated (runs count all their pages).</summary>
    public long LivePages => _runs.Values.Sum(count => (long)count);

    public int FreedRuns => _freed.Count;

    public ReadOnlySpan<byte> GetPage(long pageNumber)
    {
        if (_pages.TryGetValue(pageNumber, out var page))
        {
            return page;
        }

        throw new InvalidOperationException(_freed.Contains(pageNumber)
            ? $"page {pageNumber} was read after it was freed"
            : $"page {pageNumber} was never allocated");
    }

    public Span<byte> ModifyPage(long pageNumber)
    {
        EnsureWritable();
        if (!_runs.TryGetValue(pageNumber, out var count) || count != 1)
        {
            throw new InvalidOperationException($"ModifyPage({pageNumber}) on {(count > 1 ? "an overflow run" : "a page that is not allocated")}");
        }

        var page = _pages[pageNumber];
        if (_writableThisTransaction.Add(pageNumber))
        {
            var copy = (byte[])page.Clone();
            page.AsSpan().Fill(Poison);
            _pages[pageNumber] = copy;
            page = copy;
        }

        return page;
    }

    public bool HoldsWritableCopy(long pageNumber) => _writableThisTransaction.Contains(pageNumber);

    /// <summary>Never: these pages are movable arrays, not a mapping.</summary>
    public bool IsMapped(ReadOnlySpan<byte> page, out object? keepAlive)
    {
        keepAlive = null;
        return false;
    }

    public Span<byte> AllocatePages(int pageCount, out long pageNumber)
    {
        EnsureWritable();
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(pageCount);
        pageNumber = _nextPage;
        _nextPage += pageCount;
        var run = new byte[pageCount * (long)Constants.PageSize];
        PageHeader.SetPageNumber(run, pageNumber);
        _pages.Add(pageNumber, run);
        _runs.Add(pageNumber, pageCount);
        _writableThisTransaction.Add(pageNumber);
        return run;
    }

    public void FreePages(long pageNumber, int pageCount)
    {
        EnsureWritable();
        if (!_runs.TryGetValue(pageNumber, out var count) || count != pageCount)
        {
            throw new InvalidOperationException($"FreePages({pageNumber}, {pageCount}) does not match an allocated run (found {count} pages)");
        }

        _pages[pageNumber].AsSpan().Fill(Poison);
        _pages.Remove(pageNumber);
        _runs.Remove(pageNumber);
        _freed.Add(pageNumber);
        _writableThisTransaction.Remove(pageNumber);
    }

    /// <summary>Starts a new transaction: the next modification of each page copies it again.</summary>
    public void BeginTransaction() => _writableThisTransaction.Clear();

    /// <summary>The raw bytes of a page, to corrupt it behind the tree's back.</summary>
    public byte[] RawPage(long pageNumber) => _pages[pageNumber];

    /// <summary>
    /// Runs <see cref="BTree.Verify"/> and checks that the pages it reports are exactly the
    /// allocated ones: none leaked, none reported twice, none freed but still referenced.
    /// </summary>
    public void VerifyOwnsExactly(BTree tree, string context = "")
    {
        var owned = new Dictionary<long, int>();
        tree.Verify((page, count) =>
        {
            if (!owned.TryAdd(page, count))
            {
                throw new InvalidOperationException($"{context}Verify reported page {page} twice");
            }
        });

        foreach (var (page, count) in owned)
        {
            if (!_runs.TryGetValue(page, out var allocated) || allocated != count)
            {
                throw new InvalidOperationException($"{context}the tree owns {count} pages at {page}, but the store has {allocated} allocated there");
            }
        }

        foreach (var (page, count) in _runs)
        {
            if (!owned.ContainsKey(page))
            {
                throw new InvalidOperationException($"{context}leak: {count} pages at {page} are allocated but not owned by the tree");
            }
        }
    }

    private void EnsureWritable()
    {
        if (!IsWritable)
        {
            throw new InvalidOperationException("the test store is read-only; the tree should have refused first");
        }
    }
}
