namespace Voron.Tests.Documents;

/// <summary>
/// A bulk insert's batches create their leaves in key order (BI1); a batch whose new pages reach
/// the in-place threshold writes them to the data file once instead of journaling them
/// (Transactions/InPlacePages.cs, IP3), so the journal carries less than the documents.
/// </summary>
public sealed class BulkInPlaceTests(ITestOutputHelper output)
{
    private static readonly TestJson Json = TestJson.Default;

    [Fact]
    public async Task A_bulk_load_writes_its_new_pages_in_place_and_journals_less_than_its_documents()
    {
        var path = Path.Combine(Path.GetTempPath(), "voron-bulk-inplace-" + Guid.NewGuid().ToString("N"));
        try
        {
            await using var store = DocumentTestStore.InDirectory(path);
            var bio = new string('x', 900);
            const int count = 30_000;
            var (journalBefore, _) = store.Environment.Journal.Statistics();
            await store.BulkInsertAsync(Enumerable.Range(0, count).Select(i => DocumentTestStore.NewUser($"u{i} {bio}", i % 100)), Json.User);
            var (journalAfter, _) = store.Environment.Journal.Statistics();
            var perDocument = (journalAfter - journalBefore) / (double)count;
            output.WriteLine($"{perDocument:F0} journal bytes per ~1 KiB document; in-place commits {store.Environment.InPlace.Commits}, pages {store.Environment.InPlace.PagesWritten}");
            Assert.True(store.Environment.InPlace.Commits > 0, "no batch wrote its new pages in place");
            Assert.True(perDocument < 900, $"{perDocument:F0} journal bytes per document of ~1 KiB");
        }
        finally
        {
            Directory.Delete(path, recursive: true);
        }
    }
}
