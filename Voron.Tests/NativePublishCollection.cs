namespace Voron.Tests;

/// <summary>
/// The tests that publish with Native AOT (the AOT sample, the SQLite extension) run one after the
/// other: both build Voron.Core and the projects over it for linux-x64, into the same obj folders.
/// </summary>
[CollectionDefinition(Name)]
public sealed class NativePublishCollection
{
    public const string Name = "Native AOT publish";
}
