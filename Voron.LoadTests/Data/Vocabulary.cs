namespace Voron.LoadTests.Data;

/// <summary>
/// Made-up words for <see cref="RealisticJson"/>, built from syllables so that no word list has to
/// ship with the program: a few thousand distinct words drawn with a Zipf distribution (a handful
/// very common, most rare), as in natural text, so that compressors see the repetition real
/// documents have and not more. Deterministic: the same seed gives the same words.
/// </summary>
internal sealed class Vocabulary
{
    private static readonly string[] Onsets =
        ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "y", "z",
         "br", "ch", "cl", "cr", "dr", "fl", "fr", "gl", "gr", "kn", "pl", "pr", "sc", "sh", "sk", "sl", "sm", "sn", "sp", "st", "str", "sw", "th", "tr", "wh", ""];

    private static readonly string[] Vowels = ["a", "e", "i", "o", "u", "y", "ai", "au", "ea", "ee", "ei", "ie", "io", "oa", "oo", "ou", "ua"];

    private static readonly string[] Codas = ["", "", "", "b", "ck", "d", "ft", "g", "l", "ll", "lt", "m", "n", "nd", "ng", "nk", "nt", "p", "r", "rd", "rk", "rn", "rt", "s", "sh", "ss", "st", "t", "th", "x"];

    private readonly string[] _words;
    private readonly Zipfian _popularity;

    /// <param name="seed">The words' seed.</param>
    /// <param name="count">Distinct words.</param>
    /// <param name="theta">The skew of <see cref="Next"/>: about 1 for words of prose, lower for names.</param>
    public Vocabulary(int seed, int count, double theta)
    {
        var random = new Random(seed);
        var words = new HashSet<string>(StringComparer.Ordinal);
        while (words.Count < count)
        {
            var syllables = 1 + random.Next(3) + (random.Next(4) == 0 ? 1 : 0);
            var word = string.Concat(Enumerable.Range(0, syllables).Select(_ =>
                Onsets[random.Next(Onsets.Length)] + Vowels[random.Next(Vowels.Length)] + Codas[random.Next(Codas.Length)]));
            if (word.Length >= 2)
            {
                words.Add(word);
            }
        }

        _words = [.. words];
        _popularity = new Zipfian(count, theta);
    }

    /// <summary>A word, common words more often.</summary>
    public string Next(Random random) => _words[_popularity.Next(random)];

    /// <summary>A word with its first letter in upper case (a name).</summary>
    public string NextCapitalized(Random random)
    {
        var word = Next(random);
        return char.ToUpperInvariant(word[0]) + word[1..];
    }
}
