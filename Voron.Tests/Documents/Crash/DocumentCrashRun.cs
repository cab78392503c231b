using System.Text.Json;

namespace Voron.Tests.Documents.Crash;

/// <summary>
/// One run of a document scenario on a <see cref="CrashFileSystem"/>: a document store over a
/// crash-simulated environment, every session recorded in a <see cref="DocumentCrashModel"/> before
/// it saves and acknowledged when the save returns. When the machine loses power the calls fail
/// and the scenario ends; the harness then recovers each power loss and checks it.
/// </summary>
internal sealed class DocumentCrashRun(CrashFileSystem machine, DocumentCrashModel model, Action<StorageEnvironmentOptions>? tune)
{
    public static readonly TestJson Json = TestJson.Default;

    private StorageEnvironment? _environment;

    public DocumentStore? Store { get; private set; }

    public DocumentCrashModel Model { get; } = model;

    public StorageEnvironment Environment => _environment ?? throw new InvalidOperationException("The store is not open.");

    public static DocumentStoreOptions DocumentOptions => new() { IndexBuildBatchSize = 3 };

    public void Open()
    {
        _environment = StorageEnvironment.Open(CrashRun.Options(machine, tune));
        Store = DocumentStore.Open(_environment, DocumentOptions);
    }

    /// <summary>
    /// One session of <paramref name="caller"/>: <paramref name="build"/> makes its changes and
    /// returns them as the model sees them (id -> JSON, null for a delete). With
    /// <paramref name="refusal"/> the save must throw that exception (and nothing of it may show).
    /// </summary>
    public async Task SaveAsync(int caller, Func<IAsyncDocumentSession, Dictionary<string, string?>> build, Type? refusal = null)
    {
        await using var session = Store!.OpenSession();
        var changes = build(session);
        var number = Model.Attempt(caller, changes);
        try
        {
            await session.SaveChangesAsync();
        }
        catch (Exception e) when (refusal != null && e.GetType() == refusal)
        {
            Model.Withdraw(caller);
            return;
        }

        if (refusal != null)
        {
            throw new CrashCheckException($"the session of caller {caller} should have been refused with {refusal.Name}");
        }

        Model.Acknowledge(caller, number);
    }

    public static string Serialize(User user) => JsonSerializer.Serialize(user, Json.User);

    public void Flush() => Environment.FlushToDataFile();

    /// <summary>The process dies (no power loss: the OS keeps every write) and the store recovers on open.</summary>
    public void Restart()
    {
        Store!.Dispose();
        Environment.CloseWithoutFlush();
        Open();
    }

    /// <summary>Ends the run as a dead process would: no final flush; errors from a dead machine ignored.</summary>
    public void Finish()
    {
        try
        {
            Store?.Dispose();
            _environment?.CloseWithoutFlush();
        }
        catch (Exception e) when (e is IOException or EnvironmentFailedException or ObjectDisposedException or AggregateException)
        {
            // the machine is dead; the next open recovers
        }

        Store = null;
        _environment = null;
    }
}
