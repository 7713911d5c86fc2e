using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using Microsoft.Extensions.Logging;

namespace Missive.Tests.Infrastructure;

/// <summary>A logger provider that keeps every formatted log line (with its exception, if any), for tests that check what was logged.</summary>
public sealed class CapturingLoggerProvider : ILoggerProvider
{
    public CapturingLoggerProvider(ConcurrentQueue<string>? messages = null) => Messages = messages ?? new ConcurrentQueue<string>();

    public ConcurrentQueue<string> Messages { get; }

    /// <summary>Gets every entry with its event id, in the order logged.</summary>
    public ConcurrentQueue<(int EventId, LogLevel Level, string Text)> Entries { get; } = new();

    /// <summary>Gets each entry's structured fields (the message template's names and values), in the order logged.</summary>
    public ConcurrentQueue<(int EventId, IReadOnlyDictionary<string, object?> Fields)> Fields { get; } = new();

    /// <summary>Gets the event ids logged, each once.</summary>
    public HashSet<int> EventIds
    {
        get
        {
            var ids = new HashSet<int>();
            foreach ((int id, _, _) in Entries)
            {
                ids.Add(id);
            }

            return ids;
        }
    }

    public ILogger CreateLogger(string categoryName) => new CapturingLogger(this);

    public void Dispose()
    {
    }

    private sealed class CapturingLogger(CapturingLoggerProvider provider) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            string text = formatter(state, exception) + (exception is null ? string.Empty : " | " + exception);
            provider.Entries.Enqueue((eventId.Id, logLevel, text));
            if (state is IReadOnlyList<KeyValuePair<string, object?>> fields)
            {
                var copy = new Dictionary<string, object?>(StringComparer.Ordinal);
                foreach (KeyValuePair<string, object?> field in fields)
                {
                    copy[field.Key] = field.Value;
                }

                provider.Fields.Enqueue((eventId.Id, copy));
            }

            provider.Messages.Enqueue(text);
        }
    }
}
