using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Tests;

/// <summary>A fact about one key-value engine: skipped, with the reason, where its native library does not load.</summary>
[AttributeUsage(AttributeTargets.Method)]
internal sealed class EngineLoadsFactAttribute : FactAttribute
{
    public EngineLoadsFactAttribute(string engine)
    {
        Engine = engine;
        var kind = KvEngineCatalog.WithCompaction.Single(k => k.Name == engine);
        try
        {
            kind.Probe();
        }
        catch (DllNotFoundException)
        {
            Skip = $"{kind.MissingLibraryNote} (see docs/testing.md)";
        }
    }

    public string Engine { get; }
}
