using System;
using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Missive.Tests.Infrastructure;

/// <summary>A logger provider that keeps every formatted log line (with its exception, if any), for tests that check what was logged.</summary>
public sealed class CapturingLoggerProvider : ILoggerProvider
{
    public CapturingLoggerProvider(ConcurrentQueue<string>? messages = null) => Messages = messages ?? new ConcurrentQueue<string>();

    public ConcurrentQueue<string> Messages { get; }

    public ILogger CreateLogger(string categoryName) => new CapturingLogger(Messages);

    public void Dispose()
    {
    }

    private sealed class CapturingLogger(ConcurrentQueue<string> messages) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
            => messages.Enqueue(formatter(state, exception) + (exception is null ? string.Empty : " | " + exception));
    }
}
