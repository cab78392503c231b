using Voron.LoadTests.Experiments.Documents;

namespace Voron.Diagnostics.Engines.SqlDocs;

/// <summary>One caller of an <see cref="ISqlDocsEngine"/>: each method is one unit of work (a statement, a transaction, a session).</summary>
internal interface ISqlDocsCaller : IDisposable
{
    /// <summary>Loads one profile by id, deserialized; null when there is none.</summary>
    ValueTask<Profile?> LoadAsync(string id);

    /// <summary>At most <paramref name="take"/> profiles of a city (an indexed equality), deserialized; returns how many.</summary>
    ValueTask<int> QueryEqualAsync(string city, int take);

    /// <summary>The first <paramref name="take"/> profiles with age in [min, max) in age order (an indexed range), deserialized; returns how many.</summary>
    ValueTask<int> QueryRangeAsync(int minAge, int maxAge, int take);

    /// <summary>The purchases with ids in [first, first + count), each with its profile's name (a join of the table with the documents); returns how many rows had a profile.</summary>
    ValueTask<int> JoinAsync(long firstPurchase, int count);

    /// <summary>Stores one new profile in its own durable transaction.</summary>
    ValueTask InsertAsync(Profile profile);

    /// <summary>Stores one purchase row and its new profile in one durable transaction.</summary>
    ValueTask CrossDoorAsync(Profile profile, double amount);
}
