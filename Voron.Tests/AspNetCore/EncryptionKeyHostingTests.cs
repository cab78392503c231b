using System.Security.Cryptography;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Voron.Documents.AspNetCore;
using Voron.Tests.Documents;

namespace Voron.Tests.AspNetCore;

/// <summary>
/// <see cref="VoronDocumentStoreBuilder.UseEncryptionKey"/> opens the hosted store encrypted, and a
/// key-like configuration setting fails the start: keys are never read from configuration.
/// </summary>
public sealed class EncryptionKeyHostingTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task UseEncryptionKey_opens_the_store_encrypted_with_the_key_from_the_services()
    {
        var path = _directory.Combine("store");
        var key = RandomNumberGenerator.GetBytes(32);
        var secrets = new KeySource(key);
        await using (var app = Build(path, b => b.Services.AddSingleton(secrets), s => s.UseEncryptionKey(sp => sp.GetRequiredService<KeySource>().Key)))
        {
            await app.StartAsync();
            await using (var session = app.Services.GetRequiredService<DocumentStore>().OpenSession())
            {
                session.Store(DocumentTestStore.NewUser("ada", 36), TestJson.Default.User, "users/ada");
                await session.SaveChangesAsync();
            }

            await app.StopAsync();
        }

        Assert.True(StorageEnvironment.Inspect(path).IsEncrypted);
        await using (var withoutKey = Build(path))
        {
            var error = await Assert.ThrowsAsync<DocumentStoreOpenException>(() => withoutKey.StartAsync());
            Assert.Equal(EncryptionKeyProblem.NoKey, Assert.IsType<EncryptionKeyException>(error.InnerException).Problem);
        }

        await using (var again = Build(path, configureStore: s => s.UseEncryptionKey(_ => key)))
        {
            await again.StartAsync();
            await using (var session = again.Services.GetRequiredService<DocumentStore>().OpenSession())
            {
                Assert.Equal(36, (await session.LoadAsync("users/ada", TestJson.Default.User))!.Age);
            }

            await again.StopAsync();
        }
    }

    [Theory]
    [InlineData("Voron:EncryptionKey")]
    [InlineData("Voron:Documents:EncryptionKey")]
    [InlineData("Voron:Documents:KeyFile")]
    public async Task A_key_in_configuration_fails_the_start_saying_keys_are_not_read_from_configuration(string setting)
    {
        const string secret = "c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1wcmludGVkLXh4eHh4eHg=";
        var path = _directory.Combine("store");
        await using var app = Build(path, b => b.Configuration.AddInMemoryCollection([KeyValuePair.Create<string, string?>(setting, secret)]));

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => app.StartAsync());

        Assert.Contains($"'{setting}'", error.Message, StringComparison.Ordinal);
        Assert.Contains("encryption keys are not read from configuration files", error.Message, StringComparison.Ordinal);
        Assert.Contains("UseEncryptionKey", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(secret, error.Message, StringComparison.Ordinal);
        Assert.False(Directory.Exists(path));
    }

    public void Dispose() => _directory.Dispose();

    private static WebApplication Build(string path, Action<WebApplicationBuilder>? configure = null, Action<VoronDocumentStoreBuilder>? configureStore = null)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Configuration.AddInMemoryCollection([KeyValuePair.Create<string, string?>("Voron:Documents:Path", path)]);
        configure?.Invoke(builder);
        var store = builder.Services.AddVoronDocumentStore();
        configureStore?.Invoke(store);
        return builder.Build();
    }

    private sealed record KeySource(byte[] Key);
}
