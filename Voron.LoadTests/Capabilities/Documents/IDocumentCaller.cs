using Voron.LoadTests.Experiments.Documents;

namespace Voron.LoadTests.Capabilities.Documents;

/// <summary>One caller of a <see cref="IDocumentEngine"/>: each method is one unit of work (a session, a transaction).</summary>
internal interface IDocumentCaller : IDisposable
{
    /// <summary>Stores one new document in its own durable transaction.</summary>
    ValueTask InsertAsync(Profile profile);

    /// <summary>Loads one document by id, deserialized.</summary>
    ValueTask<Profile?> LoadAsync(string id);

    /// <summary>The first <paramref name="take"/> documents of a city (an indexed equality), deserialized; returns how many.</summary>
    ValueTask<int> QueryEqualAsync(string city, int take);

    /// <summary>The first <paramref name="take"/> documents with age in [min, max) (an indexed range), deserialized; returns how many.</summary>
    ValueTask<int> QueryRangeAsync(int minAge, int maxAge, int take);

    /// <summary>Loads a document, changes it, and saves it only if its version is still the loaded one; false on a conflict.</summary>
    ValueTask<bool> UpdateAsync(string id, int seed);
}
