using JasperFx;
using Marten;
using Npgsql;
using Voron.Documents;
using MartenStore = Marten.DocumentStore;
using VoronStore = Voron.Documents.DocumentStore;
using Weasel.Core;

namespace Voron.PostgreSql.Tests;

/// <summary>
/// The exported tables are Marten's own: a Marten DocumentStore for a type named like the
/// collection loads, queries and writes the rows, and its schema check finds nothing to change.
/// </summary>
public sealed class MartenReadsTheExportTests
{
    [PostgresFact]
    public async Task Marten_loads_and_queries_exported_documents_as_typed_documents_and_finds_its_own_table_layout()
    {
        var server = TestPostgres.Require();
        var database = await server.CreateDatabaseAsync();
        using var directory = new TempDirectory();
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path));
        await using var documents = VoronStore.Open(environment);
        await ExportStores.AddDocumentsAsync(documents, users: 500, orders: 30);

        var result = await PostgreSqlExport.ExportAsync(documents, server.Uri(database), new PostgreSqlExportOptions { DotNetTypeName = c => c == "User" ? typeof(User).FullName : null });
        Assert.Equal(530, result.Rows);
        Assert.Equal(["Order", "User"], result.Collections.Select(c => c.Collection));

        using var marten = MartenStore.For(o =>
        {
            o.Connection(server.ConnectionString(database));
            o.AutoCreateSchemaObjects = AutoCreate.CreateOrUpdate;
            o.Schema.For<User>();
        });

        // Marten's own schema comparison: the exported table needs no change (the rest of the
        // migration is Marten's helper functions, which the export does not make).
        var migration = await marten.Storage.CreateMigrationAsync();
        var table = Assert.Single(migration.Deltas, d => d.SchemaObject.Identifier.Name == "mt_doc_user");
        Assert.True(table.Difference == SchemaPatchDifference.None, $"Marten would change the exported table ({table.Difference}):\n{Describe(marten, migration)}");

        await using (var query = marten.QuerySession())
        {
            for (var i = 0; i < 500; i += 37)
            {
                var user = await query.LoadAsync<User>($"users/{i:D6}");
                Assert.NotNull(user);
                Assert.Equal($"users/{i:D6}", user.Id); // PE5: the id is in the data column whether or not the stored JSON had it
                Assert.Equal($"User {i} ünïcödé", user.Name);
                Assert.Equal(i % 90, user.Age);
                Assert.Equal([$"t{i % 5}", $"t{i % 11}"], user.Tags);
            }

            var inCity = await query.Query<User>().Where(u => u.City == "City 3" && u.Age >= 40).OrderBy(u => u.Id).ToListAsync();
            var expected = Enumerable.Range(0, 500).Where(i => i % 7 == 3 && i % 90 >= 40).Select(i => $"users/{i:D6}").ToList();
            Assert.Equal(expected, inCity.Select(u => u.Id));
            Assert.Equal(500, await query.Query<User>().CountAsync());
            Assert.Equal(typeof(User).FullName, await query.QueryAsync<string>("select mt_dotnet_type from mt_doc_user limit 1").ContinueWith(t => t.Result.Single()));
        }

        // And Marten writes into it: an update of an exported document, and a new one.
        await using (var session = marten.LightweightSession())
        {
            var user = await session.LoadAsync<User>("users/000001");
            user!.Name = "changed by Marten";
            session.Store(user);
            session.Store(new User { Id = "users/new", Name = "new", Age = 1 });
            await session.SaveChangesAsync();
        }

        await using (var query = marten.QuerySession())
        {
            Assert.Equal("changed by Marten", (await query.LoadAsync<User>("users/000001"))!.Name);
            Assert.Equal(501, await query.Query<User>().CountAsync());
        }
    }

    private static string Describe(MartenStore marten, SchemaMigration migration)
    {
        var writer = new StringWriter();
        migration.WriteAllUpdates(writer, marten.Storage.Database.Migrator, AutoCreate.CreateOrUpdate);
        return string.Join("\n", migration.Deltas.Select(d => $"{d.SchemaObject.Identifier}: {d.Difference}")) + "\n" + writer;
    }
}
