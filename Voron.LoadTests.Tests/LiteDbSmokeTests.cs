using LiteDB;

namespace Voron.LoadTests.Tests;

/// <summary>
/// LiteDB 5.0.20, the document-store peer of the load tests, restores from the registry and runs
/// here: an insert committed and the database closed is found after reopening it.
/// </summary>
public sealed class LiteDbSmokeTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void An_inserted_document_is_found_after_the_database_is_reopened()
    {
        var file = _directory.Combine("peer.litedb");
        using (var db = new LiteDatabase($"Filename={file};Connection=direct"))
        {
            var users = db.GetCollection<BsonDocument>("users");
            users.Insert(new BsonDocument { ["_id"] = "users/1", ["name"] = "Ada", ["city"] = "London" });
        }

        using (var db = new LiteDatabase($"Filename={file};Connection=direct;ReadOnly=true"))
        {
            var user = db.GetCollection<BsonDocument>("users").FindById("users/1");

            Assert.NotNull(user);
            Assert.Equal("Ada", user["name"].AsString);
        }
    }

    public void Dispose() => _directory.Dispose();
}
