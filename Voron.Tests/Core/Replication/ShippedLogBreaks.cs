using System.Security.Cryptography;
using Voron.Archive;

namespace Voron.Tests.Core.Replication;

/// <summary>The ways a shipped journal object is broken in the fail-safe tests (RE5): each takes the object's file in a directory destination.</summary>
internal static class ShippedLogBreaks
{
    /// <summary>Retention or a hand deleted it: a gap.</summary>
    public static void Delete(string victim) => File.Delete(victim);

    /// <summary>One content bit flipped: AO2 fails on download.</summary>
    public static Action<string> Damage(Random random) => victim =>
    {
        var bytes = File.ReadAllBytes(victim);
        bytes[ArchiveObjectHeader.Size + random.Next(bytes.Length - ArchiveObjectHeader.Size)] ^= 0x20;
        File.WriteAllBytes(victim, bytes);
    };

    /// <summary>A well-formed object (AO2 holds) whose Before is not its predecessor's After: another log's (AO1).</summary>
    public static void ForgeChain(string victim)
    {
        var bytes = File.ReadAllBytes(victim);
        var header = ArchiveObjectHeader.Decode(bytes, victim);
        var before = SHA256.HashData(header.Before);
        var after = SHA256.HashData([.. before, .. bytes.AsSpan(ArchiveObjectHeader.Size)]);
        var forged = (header with { Before = before, After = after }).Encode();
        forged.CopyTo(bytes, 0);
        File.WriteAllBytes(victim, bytes);
    }
}
