using System.Collections;
using System.Collections.Generic;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;

namespace Missive.Bus;

/// <summary>
/// A handling middleware that opens a logging scope around each message, so that every log line its handler writes
/// carries <c>MessageId</c> (the SQS message id), <c>CloudEventId</c>, <c>MessageType</c> (the envelope type) and
/// <c>Queue</c>. Register it with <c>UseMessageLoggingScope()</c>.
/// </summary>
public sealed class MessageLoggingScopeMiddleware : IHandleMiddleware
{
    private readonly ILogger _logger;

    /// <summary>Creates the middleware.</summary>
    /// <param name="logger">The logger whose scope is opened, or <c>null</c> when the application registers no logging (the scope then has no one to carry it to).</param>
    public MessageLoggingScopeMiddleware(ILogger<MessageLoggingScopeMiddleware>? logger = null)
        => _logger = logger ?? (ILogger)Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance;

    /// <inheritdoc />
    public async Task InvokeAsync(HandleContext context, HandleStep nextStep)
    {
        System.ArgumentNullException.ThrowIfNull(context);
        System.ArgumentNullException.ThrowIfNull(nextStep);
        using (_logger.BeginScope(new MessageScope(context)))
        {
            await nextStep(context).ConfigureAwait(false);
        }
    }

    /// <summary>The scope's values, as structured pairs (and a readable text).</summary>
    private sealed class MessageScope : IReadOnlyList<KeyValuePair<string, object?>>
    {
        private readonly KeyValuePair<string, object?>[] _values;

        public MessageScope(HandleContext context)
            => _values =
            [
                new("MessageId", context.Message.MessageId),
                new("CloudEventId", context.Envelope.Id),
                new("MessageType", context.Envelope.Type),
                new("Queue", context.Queue),
            ];

        public int Count => _values.Length;

        public KeyValuePair<string, object?> this[int index] => _values[index];

        public IEnumerator<KeyValuePair<string, object?>> GetEnumerator() => ((IEnumerable<KeyValuePair<string, object?>>)_values).GetEnumerator();

        IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

        public override string ToString() => $"MessageId:{_values[0].Value} CloudEventId:{_values[1].Value} MessageType:{_values[2].Value} Queue:{_values[3].Value}";
    }
}
