using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;
using Voron.Documents.AspNetCore;

namespace Voron.Tests.AspNetCore;

/// <summary>
/// A web app whose store settings are wrong does not start, and says why: the host's StartAsync
/// throws, naming the store and the setting — not the first request. (A plain WebApplication:
/// WebApplicationFactory sometimes reports a failed start as ObjectDisposedException.)
/// </summary>
public sealed class StartupFailureTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Theory]
    [InlineData("MaxDocumentBytes", "10", "Voron document store: DocumentStoreOptions.MaxDocumentBytes must be 1,024 to 268,435,456; it is 10.")]
    [InlineData("IndexBuildBatchSize", "0", "Voron document store: DocumentStoreOptions.IndexBuildBatchSize must be 1 to 1,000,000; it is 0.")]
    [InlineData("SlowCommitThreshold", "-00:00:01", "Voron document store: SlowCommitThreshold may not be negative")]
    public async Task Start_fails_with_the_validation_message(string key, string value, string expected)
    {
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => StartAsync(("Path", _directory.Combine("store")), (key, value)));

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Durability", "Sometimes", "the setting 'Voron:Documents:Durability' is 'Sometimes'; it must be Durable or Lazy.")]
    [InlineData("MaxDocumentBytes", "lots", "the setting 'Voron:Documents:MaxDocumentBytes' is 'lots'; it must be a whole number.")]
    [InlineData("Pth", "/tmp/x", "unknown setting 'Pth' under 'Voron:Documents'. The settings are Path, InMemory,")]
    public async Task Start_fails_naming_a_setting_that_does_not_bind(string key, string value, string expected)
    {
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => StartAsync(("Path", _directory.Combine("store")), (key, value)));

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_fails_when_no_path_is_configured()
    {
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => StartAsync());

        Assert.Contains("Voron document store: DocumentStoreOptions.Path is required (or set InMemory = true).", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_fails_when_the_path_is_a_file()
    {
        var file = _directory.Combine("not-a-directory");
        await File.WriteAllTextAsync(file, "x");

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => StartAsync(("Path", file)));

        Assert.Contains($"DocumentStoreOptions.Path '{file}' is a file; it must be a directory", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_fails_naming_the_path_when_the_store_is_open_elsewhere()
    {
        var path = _directory.Combine("store");
        using var holder = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(path));

        var error = await Assert.ThrowsAsync<DocumentStoreOpenException>(() => StartAsync(("Path", path)));

        Assert.StartsWith($"Voron document store could not be opened at '{path}': ", error.Message, StringComparison.Ordinal);
        Assert.IsType<StoreLockedException>(error.InnerException);
        Assert.Equal(path, error.Path);
        Assert.Equal(Path.Combine(path, "voron.lock"), error.LockFile);
        Assert.Equal($"{typeof(DocumentStoreOpenException).FullName}: {error.Message}", error.ToString()); // one line, no stack trace
    }

    private static async Task StartAsync(params (string Key, string Value)[] settings)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Configuration.AddInMemoryCollection(settings.Select(s => KeyValuePair.Create<string, string?>("Voron:Documents:" + s.Key, s.Value)));
        builder.Services.AddVoronDocumentStore();
        await using var app = builder.Build();
        await app.StartAsync();
        await app.StopAsync();
    }

    public void Dispose() => _directory.Dispose();
}
