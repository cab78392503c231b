using System.Globalization;
using System.Text;
using Voron.LoadTests.Data;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// The documents the <c>journal</c> experiment writes (and the <c>compression</c> experiment
/// captures): <see cref="RealisticJson"/> documents of 0.5–4 KiB, each with a sequential key
/// (<c>users/00000042</c>, inserted in order) and a random one (<c>users/</c> + 16 random hex
/// digits, inserted in that order: new keys land all over the tree), and a sequence of updates of
/// random documents (<see cref="RealisticJson.Update"/>: new timestamps and counters, sometimes a
/// new history entry).
/// </summary>
internal sealed class JournalData
{
    internal const int Seed = 20_261_121;
    internal const int MinBytes = 512;
    internal const int MaxBytes = 4096;

    private JournalData(int count)
    {
        var documents = new RealisticJson(Seed);
        var random = new Random(Seed);
        Documents = [.. Enumerable.Range(0, count).Select(_ => documents.Next(MinBytes, MaxBytes))];
        SequentialKeys = [.. Enumerable.Range(0, count).Select(i => Encoding.ASCII.GetBytes(string.Create(CultureInfo.InvariantCulture, $"users/{i:D8}")))];
        RandomKeys = [.. Enumerable.Range(0, count).Select(_ => Encoding.ASCII.GetBytes("users/" + Convert.ToHexStringLower(RandomBytes(random, 8))))];
        var current = (byte[][])Documents.Clone();
        Updates = new (int Index, byte[] Document)[count];
        for (var i = 0; i < count; i++)
        {
            var index = random.Next(count);
            current[index] = documents.Update(current[index], MaxBytes);
            Updates[i] = (index, current[index]);
        }
    }

    public int Count => Documents.Length;

    public byte[][] Documents { get; }

    public byte[][] SequentialKeys { get; }

    public byte[][] RandomKeys { get; }

    /// <summary>Updates in order: which document (by index) gets which new version.</summary>
    public (int Index, byte[] Document)[] Updates { get; }

    public static JournalData Create(int count) => new(count);

    private static byte[] RandomBytes(Random random, int count)
    {
        var bytes = new byte[count];
        random.NextBytes(bytes);
        return bytes;
    }
}
