using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Voron.Tests.AspNetCore;

/// <summary>A logger provider that keeps every message of the Voron.Documents category, for tests that assert what was logged.</summary>
internal sealed class CapturedLogs : ILoggerProvider
{
    public ConcurrentQueue<(int EventId, LogLevel Level, string Message)> Entries { get; } = new();

    public IEnumerable<(int EventId, LogLevel Level, string Message)> Of(int eventId) => Entries.Where(e => e.EventId == eventId);

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName == "Voron.Documents");

    public void Dispose()
    {
    }

    private sealed class Logger(CapturedLogs logs, bool keep) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => keep;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (keep)
            {
                logs.Entries.Enqueue((eventId.Id, logLevel, formatter(state, exception)));
            }
        }
    }
}
