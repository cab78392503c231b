namespace Voron.Documents.AspNetCore.Hosting;

/// <summary>One registered store, by name ("" for the store registered without a key): how the hosted service and the exception handler find them all.</summary>
internal sealed record DocumentStoreRegistration(string Name)
{
    /// <summary>How messages name the store: nothing for the default one, <c> 'audit'</c> for a keyed one.</summary>
    public static string Describe(string name) => name.Length == 0 ? "" : $" '{name}'";
}
