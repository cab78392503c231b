using System.Text.Json;

namespace Voron.Tests.AspNetCore;

/// <summary>One server-sent event as a client parses it: its fields, or the comment line it was.</summary>
internal sealed record ServerSentEvent(string? Id, string? Event, string? Data, string? Comment)
{
    public JsonElement Json => JsonDocument.Parse(Data!).RootElement.Clone();

    public long Version => long.Parse(Id!, System.Globalization.CultureInfo.InvariantCulture);
}

/// <summary>
/// Reads a text/event-stream as the HTML spec's parser does (lines; "field: value"; a blank line
/// ends an event; a line starting with ':' is a comment), with a hang guard on every read: a
/// stream that stops sending fails the test instead of hanging it.
/// </summary>
internal sealed class EventStreamReader(Stream stream) : IDisposable
{
    /// <summary>A guard against a hang, not a timing assertion: far beyond any expected wait.</summary>
    public static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(60);

    private readonly StreamReader _reader = new(stream, Encoding.UTF8);

    /// <summary>The next event or comment; null when the stream ended.</summary>
    public async Task<ServerSentEvent?> NextAsync()
    {
        string? id = null, name = null, comment = null;
        var data = new List<string>();
        while (true)
        {
            using var guard = new CancellationTokenSource(HangGuard);
            var line = await _reader.ReadLineAsync(guard.Token);
            if (line == null)
            {
                return null;
            }

            if (line.Length == 0)
            {
                if (id != null || name != null || data.Count > 0 || comment != null)
                {
                    return new ServerSentEvent(id, name, data.Count == 0 ? null : string.Join('\n', data), comment);
                }

                continue;
            }

            if (line[0] == ':')
            {
                comment = line[1..].TrimStart(' ');
                continue;
            }

            var colon = line.IndexOf(':', StringComparison.Ordinal);
            var field = colon < 0 ? line : line[..colon];
            var value = colon < 0 ? "" : line[(colon + 1)..];
            value = value.StartsWith(' ') ? value[1..] : value;
            switch (field)
            {
                case "id": id = value; break;
                case "event": name = value; break;
                case "data": data.Add(value); break;
                default: throw new InvalidOperationException($"Unexpected field '{field}' in the event stream: {line}");
            }
        }
    }

    /// <summary>The next <paramref name="count"/> events, skipping comments.</summary>
    public async Task<List<ServerSentEvent>> EventsAsync(int count)
    {
        var events = new List<ServerSentEvent>();
        while (events.Count < count)
        {
            var next = await NextAsync() ?? throw new InvalidOperationException($"The stream ended after {events.Count} of {count} events.");
            if (next.Comment == null)
            {
                events.Add(next);
            }
        }

        return events;
    }

    public void Dispose() => _reader.Dispose();
}
