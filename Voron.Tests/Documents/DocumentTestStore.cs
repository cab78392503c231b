namespace Voron.Tests.Documents;

/// <summary>Opens document stores for tests.</summary>
internal static class DocumentTestStore
{
    public static DocumentStore InMemory(Action<DocumentStoreOptions>? tune = null)
    {
        var options = new DocumentStoreOptions { InMemory = true };
        tune?.Invoke(options);
        return DocumentStore.Open(options);
    }

    public static DocumentStore InDirectory(string path, Action<DocumentStoreOptions>? tune = null)
    {
        var options = new DocumentStoreOptions { Path = path };
        tune?.Invoke(options);
        return DocumentStore.Open(options);
    }

    public static User NewUser(string name, int age, string? email = null, params string[] tags) =>
        new() { Name = name, Age = age, Email = email, Tags = [.. tags], Active = age % 2 == 0 };
}
