using System.Security.Cryptography;

namespace Voron.Tests.Documents;

/// <summary>
/// <see cref="DocumentStoreOptions.EncryptionKeyProvider"/>: the store it opens is encrypted with the
/// provider's key, needs it at every open, and a replica refuses it (not supported yet).
/// </summary>
public sealed class EncryptedDocumentStoreTests
{
    private static readonly TestJson Json = TestJson.Default;

    [Fact]
    public async Task A_store_opened_with_EncryptionKeyProvider_is_encrypted_and_reopens_only_with_its_key()
    {
        using var directory = new TempDirectory();
        var key = RandomNumberGenerator.GetBytes(32);
        var calls = new List<string>();
        DocumentStoreOptions Options(Func<string, byte[]>? provider) => new() { Path = directory.Path, EncryptionKeyProvider = provider };
        byte[] Provider(string d)
        {
            calls.Add(d);
            return key;
        }

        await using (var store = DocumentStore.Open(Options(Provider)))
        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("ada", 36), Json.User, "users/ada");
            await session.SaveChangesAsync();
        }

        Assert.Equal([directory.Path], calls);
        Assert.True(StorageEnvironment.Inspect(directory.Path).IsEncrypted);
        var noKey = Assert.Throws<EncryptionKeyException>(() => DocumentStore.Open(Options(null)));
        Assert.Equal(EncryptionKeyProblem.NoKey, noKey.Problem);
        var wrong = Assert.Throws<EncryptionKeyException>(() => DocumentStore.Open(Options(_ => RandomNumberGenerator.GetBytes(32))));
        Assert.Equal(EncryptionKeyProblem.WrongKey, wrong.Problem);

        await using (var store = DocumentStore.Open(Options(Provider)))
        await using (var session = store.OpenSession())
        {
            Assert.Equal(36, (await session.LoadAsync("users/ada", Json.User))!.Age);
        }

        Assert.Equal(2, calls.Count);
    }

    [Fact]
    public void OpenReplica_refuses_EncryptionKeyProvider_saying_it_is_not_supported_yet()
    {
        using var directory = new TempDirectory();
        var destination = new DirectoryArchiveDestination(directory.Combine("destination"));
        var error = Assert.Throws<ArgumentException>(() => DocumentStore.OpenReplica(destination, directory.Combine("replica"),
            options: new DocumentStoreOptions { EncryptionKeyProvider = _ => RandomNumberGenerator.GetBytes(32) }));
        Assert.Contains("not supported yet", error.Message, StringComparison.Ordinal);
        Assert.False(Directory.Exists(directory.Combine("replica")));
    }
}
