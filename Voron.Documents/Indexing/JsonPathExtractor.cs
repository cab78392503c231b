using System.Text.Json;
using System.Text.Unicode;
using Voron.Documents.Serialization;

namespace Voron.Documents.Indexing;

/// <summary>
/// Reads the values at a set of <see cref="JsonPath"/>s from a JSON document in one pass, each
/// encoded for index keys (<see cref="IndexKey"/>). Subtrees no path leads into are skipped.
/// </summary>
/// <remarks>
/// Rules, the same for index maintenance, index builds, query filters and the integrity check:
/// <list type="bullet">
/// <item>A missing property, and an array with no elements at a "[]" step, give one null value.</item>
/// <item>A "[]" step on something that is not an array treats it as an array of one element.</item>
/// <item>A path that ends on an object or an array (without "[]") is an error: objects and arrays are not index values.</item>
/// <item>A property name that appears twice in one object: a single-value path reads its first
/// occurrence, at every step (SQLite's json_extract reads the same value, so an index serves SQL
/// over documents exactly; store format 3, Storage/DocumentTrees.cs); a multikey path takes the
/// elements of every occurrence.</item>
/// </list>
/// Not thread-safe: one extractor per caller at a time.
/// </remarks>
internal sealed class JsonPathExtractor
{
    private readonly JsonPath[] _paths;
    private readonly JsonPathSegment[][] _segments;
    private readonly List<byte[]>[] _values;
    private readonly List<List<(int Path, int Segment)>> _levels = [];
    private readonly List<List<int>> _matched = [];
    private readonly KeyBuilder _key = new();
    private readonly bool _lastOccurrence;
    private bool _checkText;
    private bool _textUnsure;

    private static readonly byte[] NullValue = [IndexKey.Null];

    /// <param name="paths">The paths to read.</param>
    /// <param name="lastOccurrence">
    /// Store format 2's reading of a repeated member (single-value paths walk every occurrence and
    /// keep the last value): only the upgrade to format 3 uses it, to find the entries format 2 wrote.
    /// </param>
    public JsonPathExtractor(IReadOnlyList<JsonPath> paths, bool lastOccurrence = false)
    {
        _paths = [.. paths];
        _segments = [.. _paths.Select(p => p.Segments.ToArray())];
        _values = [.. _paths.Select(_ => new List<byte[]>())];
        _lastOccurrence = lastOccurrence;
    }

    public IReadOnlyList<JsonPath> Paths => _paths;

    /// <summary>Whether the last <see cref="Extract"/> met a property name a single-value path matches twice in one object (the two readings of store formats 2 and 3 may differ there).</summary>
    public bool MetRepeatedMember { get; private set; }

    /// <summary>The encoded values found at path <paramref name="path"/> by the last <see cref="Extract"/>: at least one.</summary>
    public IReadOnlyList<byte[]> ValuesOf(int path) => _values[path];

    /// <summary>
    /// Reads <paramref name="json"/> (a valid JSON object). Throws <see cref="ArgumentException"/>
    /// when a path ends on an object or array, or a number no double holds; throws
    /// <see cref="DocumentLimitException"/> when a multikey path yields more than
    /// <see cref="DocumentLimits.MaxIndexEntriesPerDocument"/> values.
    /// </summary>
    public void Extract(ReadOnlySpan<byte> json)
    {
        _checkText = false;
        Read(json);
    }

    /// <summary>
    /// As <see cref="Extract"/>, and checks the text rules (Serialization/JsonValidation.cs) in the
    /// same parse: JV1 by one vectorized UTF-8 scan of the bytes first, JV2 on every escaped string
    /// and property name the parse meets, skipped subtrees included. Returns true when the whole
    /// input was read as one JSON value and no rule was broken: then
    /// <see cref="JsonValidation.ValidateText"/> would not throw (SV1).
    /// False means "cannot vouch" (a rule broken, or bytes after the value): the caller runs
    /// ValidateText for the exact error.
    /// </summary>
    public bool ExtractCheckingText(ReadOnlySpan<byte> json)
    {
        if (!Utf8.IsValid(json))
        {
            return false; // JV1 over all the bytes in one vectorized scan (no parse); the caller's ValidateText finds where
        }

        _checkText = true;
        _textUnsure = false;
        try
        {
            var consumed = Read(json);
            return !_textUnsure && consumed == json.Length;
        }
        finally
        {
            _checkText = false;
        }
    }

    /// <summary>Reads the root value; returns the bytes consumed.</summary>
    private long Read(ReadOnlySpan<byte> json)
    {
        foreach (var list in _values)
        {
            list.Clear();
        }

        MetRepeatedMember = false;
        var reader = new Utf8JsonReader(json, JsonValidation.Options);
        reader.Read();
        var root = Level(0);
        root.Clear(); // a walk an exception cut short leaves its paths here; deeper levels are cleared before each use
        for (var p = 0; p < _paths.Length; p++)
        {
            root.Add((p, 0));
        }

        Walk(ref reader, 0);
        foreach (var list in _values)
        {
            if (list.Count == 0)
            {
                list.Add(NullValue);
            }
        }

        return reader.BytesConsumed;
    }

    private List<(int Path, int Segment)> Level(int depth)
    {
        while (_levels.Count <= depth)
        {
            _levels.Add([]);
        }

        return _levels[depth];
    }

    /// <summary>The single-value paths that already matched a property of the object at <paramref name="depth"/>.</summary>
    private List<int> Matched(int depth)
    {
        while (_matched.Count <= depth)
        {
            _matched.Add([]);
        }

        return _matched[depth];
    }

    /// <summary>The reader is on a value; Level(depth) lists the paths that reached it and how far.</summary>
    private void Walk(ref Utf8JsonReader reader, int depth)
    {
        var active = Level(depth);
        var token = reader.TokenType;
        if (_checkText)
        {
            CheckText(ref reader);
        }

        var wantsProperty = false;
        var wantsElement = false;
        for (var i = active.Count - 1; i >= 0; i--)
        {
            var (p, s) = active[i];
            var segments = _segments[p];
            while (s < segments.Length && segments[s].IsEach && token != JsonTokenType.StartArray)
            {
                s++; // "[]" on a non-array: the value is its only element
            }

            if (s == segments.Length)
            {
                Capture(ref reader, p);
                active.RemoveAt(i);
                continue;
            }

            active[i] = (p, s);
            wantsProperty |= !segments[s].IsEach;
            wantsElement |= segments[s].IsEach;
        }

        if (token == JsonTokenType.StartObject && wantsProperty)
        {
            var next = Level(depth + 1);
            var matched = Matched(depth);
            matched.Clear();
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                if (_checkText)
                {
                    CheckText(ref reader);
                }

                next.Clear();
                foreach (var (p, s) in active)
                {
                    var segment = _segments[p][s];
                    if (!segment.IsEach && reader.ValueTextEquals(segment.Name))
                    {
                        if (!_paths[p].IsMultikey)
                        {
                            if (matched.Contains(p))
                            {
                                MetRepeatedMember = true;
                                if (!_lastOccurrence)
                                {
                                    continue; // a repeated member: the first occurrence counts
                                }
                            }
                            else
                            {
                                matched.Add(p);
                            }
                        }

                        next.Add((p, s + 1));
                    }
                }

                reader.Read();
                if (next.Count == 0)
                {
                    Skip(ref reader, currentChecked: false);
                }
                else
                {
                    Walk(ref reader, depth + 1);
                }
            }
        }
        else if (token == JsonTokenType.StartArray && wantsElement)
        {
            var next = Level(depth + 1);
            while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
            {
                next.Clear();
                foreach (var (p, s) in active)
                {
                    if (_segments[p][s].IsEach)
                    {
                        next.Add((p, s + 1));
                    }
                }

                Walk(ref reader, depth + 1);
            }
        }
        else
        {
            Skip(ref reader, currentChecked: true);
        }

        active.Clear();
    }

    /// <summary>Skips the value the reader is on (its whole subtree), looking at its strings when checking text.</summary>
    private void Skip(ref Utf8JsonReader reader, bool currentChecked)
    {
        if (!_checkText)
        {
            reader.Skip();
            return;
        }

        if (!currentChecked)
        {
            CheckText(ref reader);
        }

        if (reader.TokenType is JsonTokenType.StartObject or JsonTokenType.StartArray)
        {
            var depth = reader.CurrentDepth;
            while (reader.Read() && reader.CurrentDepth > depth)
            {
                CheckText(ref reader);
            }
        }
    }

    /// <summary>
    /// JV2 on one string or property name, as written (between its quotes): only an escaped one
    /// can hold a \u escape. Outside strings the reader accepts no backslash.
    /// </summary>
    private void CheckText(ref Utf8JsonReader reader)
    {
        if (reader.TokenType is JsonTokenType.String or JsonTokenType.PropertyName && reader.ValueIsEscaped &&
            JsonValidation.LoneSurrogateEscape(reader.ValueSpan) >= 0)
        {
            _textUnsure = true;
        }
    }

    private void Capture(ref Utf8JsonReader reader, int path)
    {
        _key.Clear();
        if (!IndexKey.TryEncode(ref reader, _key))
        {
            var what = reader.TokenType == JsonTokenType.StartObject ? "an object" : "an array";
            throw new ArgumentException($"JSON path '{_paths[path]}' leads to {what}; an index value must be null, a boolean, a number or a string (use '[]' to index the elements of an array).");
        }

        var values = _values[path];
        if (!_paths[path].IsMultikey)
        {
            values.Clear(); // a single value: captured once, but for format 2's reading (the last one counts)
        }
        else if (values.Count >= DocumentLimits.MaxIndexEntriesPerDocument)
        {
            throw new DocumentLimitException("index entries", values.Count + 1, DocumentLimits.MaxIndexEntriesPerDocument,
                $"JSON path '{_paths[path]}' yields more than {DocumentLimits.MaxIndexEntriesPerDocument} values in one document; a multikey index takes at most that many per document.");
        }

        values.Add(_key.ToArray());
    }
}
