using System.ComponentModel.DataAnnotations;
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Infrastructure;
using Microsoft.EntityFrameworkCore.Migrations;

namespace Voron.Tests.Sql.EfCore;

/// <summary>
/// EF Core 10 (Microsoft.EntityFrameworkCore.Sqlite, as an app references it) on <c>Vfs=voron</c>,
/// through its public API only: Migrate() on a new database, EnsureCreated(), CRUD, a concurrency
/// token, 16 contexts writing at once, and EnsureDeleted(), which fails clearly and deletes
/// nothing (V11, V12 in Voron.SqliteVfs/Databases/DatabaseState.cs; docs/sql.md, "EF Core").
/// </summary>
public sealed class EfCoreTests
{
    [Fact]
    public void Migrate_creates_a_new_database_then_CRUD_works_and_a_second_Migrate_changes_nothing()
    {
        // What broke: Migrate() and EnsureCreated() run PRAGMA journal_mode = 'wal' on a new
        // database, and the VFS answered it with an error, so EF Core could not create one.
        using var directory = new TempDirectory();
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path));
        using var sql = VoronSqlite.Register(environment, "voron-ef-" + Guid.NewGuid().ToString("N")[..8]);
        var connectionString = sql.ConnectionString("shop");

        using (var db = new ShopContext(connectionString))
        {
            db.Database.Migrate();
            Assert.Equal([nameof(InitialShop)], db.Database.GetAppliedMigrations().Select(m => m.Split('_', 2)[1]));

            db.Orders.Add(new Order { Customer = "Ada", Total = 10 });
            db.Orders.Add(new Order { Customer = "Grace", Total = 20 });
            db.SaveChanges();
        }

        using (var db = new ShopContext(connectionString))
        {
            db.Database.Migrate(); // nothing pending
            var ada = db.Orders.Single(o => o.Customer == "Ada");
            ada.Total = 11;
            db.Orders.Remove(db.Orders.Single(o => o.Customer == "Grace"));
            db.SaveChanges();
        }

        using (var db = new ShopContext(connectionString))
        {
            Assert.Equal([("Ada", 11m)], db.Orders.OrderBy(o => o.Id).Select(o => new { o.Customer, o.Total }).AsEnumerable().Select(o => (o.Customer, o.Total)));
            Assert.Empty(db.Database.GetPendingMigrations());
        }
    }

    [Fact]
    public void EnsureCreated_creates_a_new_database_and_reports_an_existing_one()
    {
        using var store = new SqlStore();
        var connectionString = store.Registration.ConnectionString("created");
        using (var db = new ShopContext(connectionString))
        {
            Assert.True(db.Database.EnsureCreated());
            db.Orders.Add(new Order { Customer = "Ada", Total = 1 });
            db.SaveChanges();
        }

        using (var db = new ShopContext(connectionString))
        {
            Assert.False(db.Database.EnsureCreated());
            Assert.Equal(1, db.Orders.Count());
        }
    }

    [Fact]
    public void A_concurrency_token_makes_the_second_of_two_conflicting_saves_fail()
    {
        using var store = new SqlStore();
        var connectionString = store.Registration.ConnectionString("tokens");
        using (var db = new ShopContext(connectionString))
        {
            db.Database.Migrate();
            db.Orders.Add(new Order { Customer = "Ada", Total = 1 });
            db.SaveChanges();
        }

        using var first = new ShopContext(connectionString);
        using var second = new ShopContext(connectionString);
        var a = first.Orders.Single();
        var b = second.Orders.Single();
        a.Total = 2;
        a.Stamp = Guid.NewGuid();
        first.SaveChanges();

        b.Total = 3;
        b.Stamp = Guid.NewGuid();
        Assert.Throws<DbUpdateConcurrencyException>(() => second.SaveChanges());

        using var check = new ShopContext(connectionString);
        Assert.Equal(2, check.Orders.Single().Total);
    }

    [Fact]
    public async Task Sixteen_contexts_insert_and_update_at_once_and_every_acknowledged_write_is_there()
    {
        using var store = new SqlStore();
        var connectionString = store.Registration.ConnectionString("busy");
        using (var db = new ShopContext(connectionString))
        {
            db.Database.Migrate();
            db.Orders.Add(new Order { Customer = "counter", Total = 0 });
            db.SaveChanges();
        }

        const int Contexts = 16;
        const int Writes = 10;
        var workers = Enumerable.Range(0, Contexts).Select(w => Task.Factory.StartNew(() =>
        {
            for (var i = 0; i < Writes; i++)
            {
                using (var db = new ShopContext(connectionString))
                {
                    db.Orders.Add(new Order { Customer = $"c{w}", Total = i });
                    db.SaveChanges();
                }

                // Increment the shared row with its concurrency token, retrying on conflict.
                while (true)
                {
                    using var db = new ShopContext(connectionString);
                    var counter = db.Orders.Single(o => o.Customer == "counter");
                    counter.Total += 1;
                    counter.Stamp = Guid.NewGuid();
                    try
                    {
                        db.SaveChanges();
                        break;
                    }
                    catch (DbUpdateConcurrencyException)
                    {
                    }
                }
            }
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)).ToArray();
        await Task.WhenAll(workers);

        using var check = new ShopContext(connectionString);
        Assert.Equal(Contexts * Writes, check.Orders.Count(o => o.Customer != "counter"));
        Assert.Equal(Contexts * Writes, check.Orders.Single(o => o.Customer == "counter").Total);
        Assert.Equal("ok", check.Database.SqlQueryRaw<string>("PRAGMA integrity_check").AsEnumerable().Single());
    }

    [Fact]
    public void EnsureDeleted_fails_clearly_deletes_nothing_and_never_touches_a_file_of_the_same_name()
    {
        // What broke: a database's full pathname was its bare name, so EF Core's EnsureDeleted
        // deleted the file of that name in the process's current directory (and returned true,
        // leaving the database). Now the full pathname is under a directory of the store that is
        // never created: File.Delete fails with a message that says why, and nothing is deleted.
        using var directory = new TempDirectory();
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path));
        using var sql = VoronSqlite.Register(environment, "voron-ef-" + Guid.NewGuid().ToString("N")[..8]);
        var name = "ef-delete-" + Guid.NewGuid().ToString("N")[..8];
        var bystander = Path.Combine(Environment.CurrentDirectory, name);
        File.WriteAllText(bystander, "not a database");
        try
        {
            var connectionString = sql.ConnectionString(name);
            using (var db = new ShopContext(connectionString))
            {
                db.Database.Migrate();
                db.Orders.Add(new Order { Customer = "Ada", Total = 1 });
                db.SaveChanges();
            }

            using (var db = new ShopContext(connectionString))
            {
                var error = Assert.Throws<DirectoryNotFoundException>(() => db.Database.EnsureDeleted());
                Assert.Contains("live inside its data file, not as files", error.Message, StringComparison.Ordinal);
            }

            Assert.Equal("not a database", File.ReadAllText(bystander));
            using var check = new ShopContext(connectionString);
            Assert.Equal(1, check.Orders.Count());
        }
        finally
        {
            File.Delete(bystander);
        }
    }

    /// <summary>The shop of these tests: one table, with a concurrency token.</summary>
    private sealed class ShopContext(string connectionString) : DbContext
    {
        public DbSet<Order> Orders => Set<Order>();

        protected override void OnConfiguring(DbContextOptionsBuilder options) => options.UseSqlite(connectionString);
    }

    private sealed class Order
    {
        public int Id { get; set; }

        public string Customer { get; set; } = "";

        public decimal Total { get; set; }

        [ConcurrencyCheck]
        public Guid Stamp { get; set; } = Guid.NewGuid();
    }

    /// <summary>The migration `dotnet ef migrations add InitialShop` would write for <see cref="ShopContext"/>.</summary>
    [DbContext(typeof(ShopContext))]
    [Migration("20261206000000_InitialShop")]
    private sealed class InitialShop : Migration
    {
        protected override void Up(MigrationBuilder migrationBuilder) =>
            migrationBuilder.CreateTable(
                name: "Orders",
                columns: table => new
                {
                    Id = table.Column<int>(type: "INTEGER", nullable: false).Annotation("Sqlite:Autoincrement", true),
                    Customer = table.Column<string>(type: "TEXT", nullable: false),
                    Total = table.Column<decimal>(type: "TEXT", nullable: false),
                    Stamp = table.Column<Guid>(type: "TEXT", nullable: false),
                },
                constraints: table => table.PrimaryKey("PK_Orders", x => x.Id));

        protected override void Down(MigrationBuilder migrationBuilder) => migrationBuilder.DropTable(name: "Orders");
    }
}
