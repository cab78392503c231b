using Microsoft.EntityFrameworkCore;

namespace Voron.Tests.Sql.Replica;

/// <summary>
/// EF Core (Microsoft.EntityFrameworkCore.Sqlite) on a read replica (V18): a context over the
/// replica's <c>Vfs=</c> connection string queries what the primary's context saved, and
/// SaveChanges is refused with SQLITE_READONLY and writes nothing.
/// </summary>
public sealed class ReplicaEfCoreTests
{
    [Fact]
    public async Task A_query_through_EF_Core_on_the_replica_returns_the_primary_rows_and_SaveChanges_is_refused()
    {
        using var sql = new ReplicatedSql();
        await sql.StartReplicaAsync();
        var primaryConnection = sql.PrimarySql.ConnectionString("shop");
        using (var db = new ShopContext(primaryConnection))
        {
            db.Database.EnsureCreated();
            db.Orders.AddRange(new Order { Customer = "Ada", Total = 10 }, new Order { Customer = "Grace", Total = 20 }, new Order { Customer = "Ada", Total = 5 });
            db.SaveChanges();
        }

        await sql.CatchUpAsync();
        foreach (var mode in new[] { SqliteOpenMode.ReadWriteCreate, SqliteOpenMode.ReadOnly })
        {
            using var db = new ShopContext(sql.ReplicaConnectionString("shop", mode));
            var ada = db.Orders.Where(o => o.Customer == "Ada").OrderBy(o => o.Total).Select(o => o.Total).ToList();
            Assert.Equal(new[] { 5.0, 10.0 }, ada);
            Assert.Equal(3, await db.Orders.CountAsync());

            db.Orders.Add(new Order { Customer = "Linus", Total = 1 });
            db.Orders.Single(o => o.Customer == "Grace").Total = 0;
            var refused = Assert.ThrowsAny<Exception>(() => db.SaveChanges());
            var sqlite = FindSqliteException(refused);
            Assert.True(sqlite is { SqliteErrorCode: 8 }, $"{mode}: {refused}"); // SQLITE_READONLY
        }

        using (var check = new ShopContext(sql.ReplicaConnectionString("shop")))
        {
            Assert.Equal(new[] { ("Ada", 10.0), ("Grace", 20.0), ("Ada", 5.0) }, check.Orders.OrderBy(o => o.Id).AsEnumerable().Select(o => (o.Customer, o.Total)));
        }

        using (var db = new ShopContext(primaryConnection))
        {
            db.Orders.Add(new Order { Customer = "Linus", Total = 1 });
            db.SaveChanges();
        }

        await sql.CatchUpAsync();
        using (var after = new ShopContext(sql.ReplicaConnectionString("shop")))
        {
            Assert.Equal(4, after.Orders.Count());
        }
    }

    private static SqliteException? FindSqliteException(Exception? error)
    {
        for (; error != null; error = error.InnerException)
        {
            if (error is SqliteException sqlite)
            {
                return sqlite;
            }
        }

        return null;
    }

    private sealed class ShopContext(string connectionString) : DbContext
    {
        public DbSet<Order> Orders => Set<Order>();

        protected override void OnConfiguring(DbContextOptionsBuilder options) => options.UseSqlite(connectionString);
    }

    private sealed class Order
    {
        public int Id { get; set; }

        public string Customer { get; set; } = "";

        public double Total { get; set; }
    }
}
