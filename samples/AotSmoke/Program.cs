using System.Text;
using AotSmoke;
using Voron.Documents;

// Stores, loads and queries documents in a Native AOT build: the typed calls take the
// source-generated JsonTypeInfo, so nothing needs reflection. Exits 0 when every check passes.
var directory = args.Length > 0 ? args[0] : Path.Combine(Path.GetTempPath(), "voron-aot-smoke-" + Guid.NewGuid().ToString("N"));
var json = AppJson.Default;
try
{
    await using (var store = DocumentStore.Open(new DocumentStoreOptions { Path = directory }))
    {
        await store.EnsureIndexAsync(IndexDefinition.For(json.Product, "products_by_price", p => p.Price));
        await store.EnsureIndexAsync(IndexDefinition.For(json.Product, "products_by_tag", p => p.Tags));
        await store.EnsureIndexAsync(IndexDefinition.For(json.Product, "products_by_name", p => p.Name).AsUnique());

        await using (var session = store.OpenSession())
        {
            for (var i = 1; i <= 100; i++)
            {
                session.Store(new Product { Name = $"product {i}", Price = i * 1.5, Tags = [i % 2 == 0 ? "even" : "odd"] }, json.Product);
            }

            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            var product = await session.LoadAsync("Product/7", json.Product) ?? throw new InvalidOperationException("Product/7 is missing");
            Check(product.Name == "product 7", "load by id");

            // double, not decimal: under Native AOT, System.Linq.Expressions cannot find decimal's
            // comparison operators for a lambda (a runtime limit of expression trees, not of the store).
            var cheap = await session.Query(json.Product).Where(p => p.Price < 10).OrderBy(p => p.Price).ToListAsync();
            Check(cheap.Count == 6 && cheap[0].Name == "product 1", "range query");
            Check(await session.Query(json.Product).CountAsync(p => p.Tags.Contains("even")) == 50, "multikey query");
            var name = "product 42";
            Check((await session.Query(json.Product).SingleAsync(p => p.Name == name)).Id == "Product/42", "equality query");
            var streamed = 0;
            await foreach (var expensive in session.Query(json.Product).Where(p => p.Price >= 140).OrderByDescending(p => p.Price))
            {
                streamed++;
            }

            Check(streamed == 7, "streamed query");

            var raw = new System.Buffers.ArrayBufferWriter<byte>();
            await session.LoadRawAsync("Product/7", raw);
            Check(Encoding.UTF8.GetString(raw.WrittenSpan).Contains("\"product 7\"", StringComparison.Ordinal), "raw load");

            product.Price = 99;
            await session.SaveChangesAsync();
        }

        await using (var stale = store.OpenSession())
        {
            stale.Store(new Product { Name = "stale" }, json.Product, "Product/7", expectedVersion: 1);
            try
            {
                await stale.SaveChangesAsync();
                Check(false, "optimistic concurrency");
            }
            catch (ConcurrencyException)
            {
                // expected
            }
        }

        Check(store.CheckIntegrity().Documents == 100, "integrity");
    }

    Console.WriteLine("AOT smoke test: ok");
    return 0;
}
catch (Exception e)
{
    Console.Error.WriteLine($"AOT smoke test failed: {e}");
    return 1;
}
finally
{
    if (args.Length == 0)
    {
        Directory.Delete(directory, recursive: true);
    }
}

static void Check(bool condition, string what)
{
    if (!condition)
    {
        throw new InvalidOperationException($"check failed: {what}");
    }
}
