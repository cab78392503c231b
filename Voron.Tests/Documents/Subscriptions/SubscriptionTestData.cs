namespace Voron.Tests.Documents.Subscriptions;

/// <summary>Shared steps of the subscription tests: users saved as the source changes, notes as a worker's derived documents.</summary>
internal static class SubscriptionTestData
{
    private static readonly TestJson Json = TestJson.Default;

    /// <summary>Saves <paramref name="count"/> new users in one session; returns their versions.</summary>
    public static async Task<List<long>> SaveUsersAsync(DocumentStore store, int count, string prefix = "u")
    {
        await using var session = store.OpenSession();
        var users = new List<User>();
        for (var i = 0; i < count; i++)
        {
            var user = DocumentTestStore.NewUser($"{prefix}{i}", i);
            session.Store(user, Json.User);
            users.Add(user);
        }

        await session.SaveChangesAsync();
        return [.. users.Select(u => session.GetMetadata(u)!.Version)];
    }

    public static async Task SaveNoteAsync(DocumentStore store, string text)
    {
        await using var session = store.OpenSession();
        session.Store(new Note { Text = text }, Json.Note);
        await session.SaveChangesAsync();
    }

    /// <summary>Every note's text (the derived documents), in no particular order.</summary>
    public static async Task<List<string>> NoteTextsAsync(DocumentStore store)
    {
        await using var session = store.OpenSession();
        return [.. (await session.Query(Json.Note).ToListAsync()).Select(n => n.Text)];
    }

    /// <summary>The derived document of a change: a note with a generated id, so a change processed twice leaves two.</summary>
    public static void Derive(IAsyncDocumentSession session, DocumentChange change) =>
        session.Store(new Note { Text = "v" + change.Version }, Json.Note);
}
