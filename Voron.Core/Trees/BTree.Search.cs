namespace Voron.Trees;

internal sealed partial class BTree
{
    /// <summary>
    /// Looks <paramref name="key"/> up. The value span points into the page (or overflow run)
    /// and is valid until the tree is next changed or the transaction ends.
    /// </summary>
    public bool TryGet(ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        ValidateKey(key);
        value = default;
        if (_state.RootPage == 0)
        {
            return false;
        }

        // OpenPage enforces BT2, so the loop ends at level Depth - 1 at the latest.
        var pageNumber = _state.RootPage;
        for (var level = 0; ; level++)
        {
            var page = OpenPage(pageNumber, level);
            if (page.IsLeaf)
            {
                var index = page.SearchLeaf(key);
                if (index < 0)
                {
                    return false;
                }

                value = ReadValue(page, index);
                return true;
            }

            pageNumber = page.GetChild(page.SearchBranch(key));
        }
    }
}
