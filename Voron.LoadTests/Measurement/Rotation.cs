namespace Voron.LoadTests.Measurement;

/// <summary>
/// The order of the engines (or modes) in run <c>r</c>: the list rotated left by <c>r</c>, so
/// over as many runs as there are items each one goes first once, and a slow start of a run
/// (or a backlog a previous run left) does not always land on the same one.
/// </summary>
internal static class Rotation
{
    public static IReadOnlyList<T> For<T>(IReadOnlyList<T> items, int run)
    {
        if (items.Count == 0)
        {
            return items;
        }

        var shift = ((run % items.Count) + items.Count) % items.Count;
        return [.. items.Skip(shift), .. items.Take(shift)];
    }
}
