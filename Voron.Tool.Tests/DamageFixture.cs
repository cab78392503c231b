namespace Voron.Tool.Tests;

/// <summary>
/// The stores the info/stat/check/dump tests start from, made once per test class: a clean one
/// (<see cref="TestStores.CreateClean"/>), one with documents and SQL
/// (<see cref="TestStores.CreateWithDocumentsAndSqlAsync"/>) and one whose last transactions are
/// only in the journal (<see cref="DamageProcesses.MakeUnflushed"/>). Tests never run the tool on
/// these: opening a store may write to it (recovery, a header), so each test works on a
/// <see cref="CopyOf"/>.
/// </summary>
public sealed class DamageFixture : IAsyncLifetime, IDisposable
{
    private readonly TempDirectory _root = new();

    internal string Clean => _root.Combine("clean");

    internal string Full => _root.Combine("full");

    internal string Unflushed => _root.Combine("unflushed");

    internal List<DamageProcesses.Record> Records { get; private set; } = [];

    public async Task InitializeAsync()
    {
        Directory.CreateDirectory(Clean);
        TestStores.CreateClean(Clean);
        Directory.CreateDirectory(Full);
        await TestStores.CreateWithDocumentsAndSqlAsync(Full);
        Directory.CreateDirectory(Unflushed);
        Records = DamageProcesses.MakeUnflushed(Unflushed);
    }

    public Task DisposeAsync() => Task.CompletedTask;

    public void Dispose() => _root.Dispose();

    /// <summary>A copy of <paramref name="store"/> in a new directory of <paramref name="scratch"/>; journal record paths of the copy are <see cref="InCopy"/>.</summary>
    internal static string CopyOf(string store, TempDirectory scratch, string name = "store")
    {
        var copy = scratch.Combine(name);
        DamageStores.Copy(store, copy);
        return copy;
    }

    /// <summary>The path in <paramref name="copy"/> of a file of the <see cref="Unflushed"/> store.</summary>
    internal string InCopy(string copy, string path) => Path.Combine(copy, Path.GetRelativePath(Unflushed, path));
}
