using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Missive.Diagnostics;

/// <summary>
/// The bus's spans and instruments. Spans come from <see cref="MissiveDiagnostics.ActivitySource"/>; nothing is
/// started, tagged or measured unless a listener wants it (<see cref="ActivitySource.HasListeners"/>,
/// <see cref="Instrument.Enabled"/>).
/// </summary>
internal sealed class BusTelemetry : IDisposable
{
    /// <summary>The CloudEvents distributed tracing extension (https://github.com/cloudevents/spec/blob/main/cloudevents/extensions/distributed-tracing.md).</summary>
    public const string TraceParent = "traceparent";

    /// <inheritdoc cref="TraceParent"/>
    public const string TraceState = "tracestate";

    private readonly Meter _meter;
    private readonly bool _ownsMeter;
    private readonly Counter<long> _sent;
    private readonly Counter<long> _consumed;
    private readonly Counter<long> _handled;
    private readonly Counter<long> _failed;
    private readonly Counter<long> _redelivered;
    private readonly Counter<long> _deadLettered;
    private readonly Histogram<double> _processDuration;
    private readonly Histogram<double> _operationDuration;
    private readonly Histogram<long> _envelopeSize;

    /// <param name="meterFactory">The host's meter factory (so that its listeners see the meter), or <c>null</c> for a meter of the bus's own.</param>
    public BusTelemetry(IMeterFactory? meterFactory)
    {
        var options = new MeterOptions(MissiveDiagnostics.Name) { Version = MissiveDiagnostics.Version };
        _ownsMeter = meterFactory is null;
        _meter = meterFactory?.Create(options) ?? new Meter(options);
        _sent = _meter.CreateCounter<long>("messaging.client.sent.messages", "{message}", "Messages the bus published (one per publish, failed or not; error.type tells the failures).");
        _consumed = _meter.CreateCounter<long>("messaging.client.consumed.messages", "{message}", "Messages the bus received and passed on to be handled.");
        _handled = _meter.CreateCounter<long>("missive.messages.handled", "{message}", "Messages handled successfully (deleted from the queue).");
        _failed = _meter.CreateCounter<long>("missive.messages.failed", "{message}", "Messages that could not be read or whose handling failed (left to be received again).");
        _redelivered = _meter.CreateCounter<long>("missive.messages.redelivered", "{message}", "Messages received more than once (SQS ApproximateReceiveCount above 1).");
        _deadLettered = _meter.CreateCounter<long>("missive.messages.dead_lettered", "{message}", "Messages the bus moved to a dead-letter queue itself (a DeadLetter outcome).");
        var durations = new InstrumentAdvice<double> { HistogramBucketBoundaries = MessagingConventions.DurationBuckets };
        _processDuration = _meter.CreateHistogram("messaging.process.duration", "s", "Time the handler (with its middleware) took for one message.", tags: null, durations);
        _operationDuration = _meter.CreateHistogram("messaging.client.operation.duration", "s", "Time a call to the messaging service took: a publish, or a receive.", tags: null, durations);
        _envelopeSize = _meter.CreateHistogram<long>("missive.envelope.size", "By", "Size in UTF-8 bytes of the body that carries an envelope (SQS body, SNS Message or EventBridge Detail), published or received.");
    }

    /// <summary>Gets the meter, for tests and listeners that filter by instance.</summary>
    public Meter Meter => _meter;

    /// <summary>Starts the producer span of a publish, named <c>{operation} {destination}</c>; <c>null</c> when nobody listens.</summary>
    public static Activity? StartPublish(string system, string operation, string destination, MessageEnvelope envelope)
    {
        if (!MissiveDiagnostics.ActivitySource.HasListeners())
        {
            return null;
        }

        Activity? activity = MissiveDiagnostics.ActivitySource.StartActivity(operation + " " + destination, ActivityKind.Producer);
        if (activity is { IsAllDataRequested: true })
        {
            activity.SetTag(MessagingConventions.System, system);
            activity.SetTag(MessagingConventions.OperationName, operation);
            activity.SetTag(MessagingConventions.OperationType, MessagingConventions.Send);
            activity.SetTag(MessagingConventions.DestinationName, destination);
            TagCloudEvent(activity, envelope);
        }

        return activity;
    }

    /// <summary>
    /// Writes the current trace context (the producer span's, else the application's current activity) into the
    /// envelope's <c>traceparent</c> and <c>tracestate</c> extensions, unless the application set <c>traceparent</c> itself.
    /// </summary>
    public static void InjectTraceContext(MessageEnvelope envelope)
    {
        if (Activity.Current is not { IdFormat: ActivityIdFormat.W3C } current || envelope.ExtensionsOrNull?.ContainsKey(TraceParent) == true)
        {
            return;
        }

        envelope.Extensions[TraceParent] = CloudEventAttributeValue.FromString(current.Id!);
        if (!string.IsNullOrEmpty(current.TraceStateString))
        {
            envelope.Extensions[TraceState] = CloudEventAttributeValue.FromString(current.TraceStateString);
        }
    }

    /// <summary>
    /// Starts the consumer span of handling one message, named <c>process {queue}</c>, as a child of the trace context
    /// the envelope carries (its <c>traceparent</c> and <c>tracestate</c>), or of the current activity when it carries none.
    /// </summary>
    public static Activity? StartProcess(string queue, string messageId, MessageEnvelope envelope)
    {
        if (!MissiveDiagnostics.ActivitySource.HasListeners())
        {
            return null;
        }

        ActivityContext parent = default;
        if (envelope.ExtensionsOrNull is { } extensions && extensions.TryGetValue(TraceParent, out CloudEventAttributeValue traceParent)
            && traceParent.Type == CloudEventAttributeType.String)
        {
            string? traceState = extensions.TryGetValue(TraceState, out CloudEventAttributeValue state) && state.Type == CloudEventAttributeType.String ? state.AsString() : null;
            ActivityContext.TryParse(traceParent.AsString(), traceState, isRemote: true, out parent);
        }

        Activity? activity = MissiveDiagnostics.ActivitySource.StartActivity("process " + queue, ActivityKind.Consumer, parent);
        if (activity is { IsAllDataRequested: true })
        {
            activity.SetTag(MessagingConventions.System, MessagingConventions.AwsSqs);
            activity.SetTag(MessagingConventions.OperationName, MessagingConventions.Process);
            activity.SetTag(MessagingConventions.OperationType, MessagingConventions.Process);
            activity.SetTag(MessagingConventions.DestinationName, queue);
            activity.SetTag(MessagingConventions.MessageId, messageId);
            TagCloudEvent(activity, envelope);
        }

        return activity;
    }

    /// <summary>
    /// Marks a span failed with the exception's type as <c>error.type</c>; its message becomes the status description
    /// only when content may be shown (an application's exception may hold message content).
    /// </summary>
    public static void Fail(Activity? activity, Exception exception, bool logContent)
    {
        if (activity is null)
        {
            return;
        }

        activity.SetStatus(ActivityStatusCode.Error, logContent || exception is MissiveException ? exception.Message : exception.GetType().FullName);
        activity.SetTag(MessagingConventions.ErrorType, ErrorTypeOf(exception));
    }

    /// <summary>
    /// The <c>error.type</c> of a failure: the service's error code of a transport failure (<c>AccessDenied</c>,
    /// <c>ThrottlingException</c>, <c>ConnectionFailure</c>, … a small fixed set, so a persistent refusal and a passing
    /// outage are told apart), else the exception's type.
    /// </summary>
    internal static string ErrorTypeOf(Exception error)
        => error is MessageTransportException { ErrorCode: { Length: > 0 } code } ? code : error.GetType().FullName ?? error.GetType().Name;

    /// <summary>Marks a span failed for a reason other than an exception.</summary>
    public static void Fail(Activity? activity, string errorType)
    {
        if (activity is null)
        {
            return;
        }

        activity.SetStatus(ActivityStatusCode.Error);
        activity.SetTag(MessagingConventions.ErrorType, errorType);
    }

    /// <summary>Records a publish: the message sent (or not), the call's duration, and the size of the body that carries the envelope.</summary>
    /// <param name="system">The <c>messaging.system</c>.</param>
    /// <param name="operation">The <c>messaging.operation.name</c> (send, publish, put_events).</param>
    /// <param name="destination">The queue, topic or bus.</param>
    /// <param name="eventType">The envelope's type.</param>
    /// <param name="bodySize">The body's size in UTF-8 bytes, or a negative number when it was not written.</param>
    /// <param name="elapsed">How long the transport's call took.</param>
    /// <param name="error">Why it failed, or <c>null</c>.</param>
    public void Published(string system, string operation, string destination, string eventType, long bodySize, TimeSpan elapsed, Exception? error)
    {
        if (_sent.Enabled || _operationDuration.Enabled)
        {
            var tags = new TagList
            {
                { MessagingConventions.System, system },
                { MessagingConventions.OperationName, operation },
                { MessagingConventions.OperationType, MessagingConventions.Send },
                { MessagingConventions.DestinationName, destination },
            };
            if (error is not null)
            {
                tags.Add(MessagingConventions.ErrorType, ErrorTypeOf(error));
            }

            _operationDuration.Record(elapsed.TotalSeconds, tags);
            tags.Add(MessagingConventions.CloudEventType, eventType);
            _sent.Add(1, tags);
        }

        if (error is null && bodySize >= 0 && _envelopeSize.Enabled)
        {
            _envelopeSize.Record(bodySize, new TagList
            {
                { MessagingConventions.OperationType, MessagingConventions.Send },
                { MessagingConventions.DestinationName, destination },
                { MessagingConventions.CloudEventType, eventType },
            });
        }
    }

    /// <summary>Records a receive call of a poller: how long it took, and whether it failed.</summary>
    public void ReceiveCalled(string queue, TimeSpan elapsed, Exception? error)
    {
        if (!_operationDuration.Enabled)
        {
            return;
        }

        var tags = new TagList
        {
            { MessagingConventions.System, MessagingConventions.AwsSqs },
            { MessagingConventions.OperationName, MessagingConventions.Receive },
            { MessagingConventions.OperationType, MessagingConventions.Receive },
            { MessagingConventions.DestinationName, queue },
        };
        if (error is not null)
        {
            tags.Add(MessagingConventions.ErrorType, ErrorTypeOf(error));
        }

        _operationDuration.Record(elapsed.TotalSeconds, tags);
    }

    /// <summary>Records a received message delivered to the bus, and whether it was received before.</summary>
    public void Received(string queue, int receiveCount)
    {
        if (_consumed.Enabled)
        {
            _consumed.Add(1, new TagList
            {
                { MessagingConventions.System, MessagingConventions.AwsSqs },
                { MessagingConventions.OperationName, MessagingConventions.Receive },
                { MessagingConventions.DestinationName, queue },
            });
        }

        if (receiveCount > 1 && _redelivered.Enabled)
        {
            _redelivered.Add(1, new KeyValuePair<string, object?>(MessagingConventions.DestinationName, queue));
        }
    }

    /// <summary>Records the size of the body that carried a received envelope, with the envelope's type once it is read.</summary>
    /// <param name="queue">The queue.</param>
    /// <param name="bodySize">The body's size in UTF-8 bytes.</param>
    /// <param name="eventType">The envelope's type, or <c>null</c> when it could not be read.</param>
    public void EnvelopeReceived(string queue, long bodySize, string? eventType)
    {
        if (!_envelopeSize.Enabled)
        {
            return;
        }

        var tags = new TagList
        {
            { MessagingConventions.OperationType, MessagingConventions.Process },
            { MessagingConventions.DestinationName, queue },
        };
        if (eventType is not null)
        {
            tags.Add(MessagingConventions.CloudEventType, eventType);
        }

        _envelopeSize.Record(bodySize, tags);
    }

    /// <summary>Whether the envelope size is measured: the body's UTF-8 length is computed only then.</summary>
    public bool MeasuresEnvelopeSize => _envelopeSize.Enabled;

    /// <summary>Records the end of handling a message: handled or failed, and how long the handler took.</summary>
    /// <param name="queue">The queue.</param>
    /// <param name="eventType">The envelope's type, or <c>null</c> when it could not be read.</param>
    /// <param name="elapsed">The handler's time, or <c>null</c> when no handler ran.</param>
    /// <param name="errorType">Why it was not handled, or <c>null</c> when it was.</param>
    /// <param name="counted">Whether to count it as handled or failed (a message to be dead-lettered is counted once it is moved).</param>
    public void Processed(string queue, string? eventType, TimeSpan? elapsed, string? errorType, bool counted = true)
    {
        var tags = new TagList
        {
            { MessagingConventions.DestinationName, queue },
            { MessagingConventions.CloudEventType, eventType },
        };
        if (errorType is not null)
        {
            tags.Add(MessagingConventions.ErrorType, errorType);
        }

        if (counted)
        {
            (errorType is null ? _handled : _failed).Add(1, tags);
        }

        if (elapsed is { } time && _processDuration.Enabled)
        {
            tags.Add(MessagingConventions.System, MessagingConventions.AwsSqs);
            tags.Add(MessagingConventions.OperationName, MessagingConventions.Process);
            tags.Add(MessagingConventions.OperationType, MessagingConventions.Process);
            _processDuration.Record(time.TotalSeconds, tags);
        }
    }

    public void DeadLettered(string queue, string? eventType)
    {
        if (_deadLettered.Enabled)
        {
            _deadLettered.Add(1, new KeyValuePair<string, object?>(MessagingConventions.DestinationName, queue), new KeyValuePair<string, object?>(MessagingConventions.CloudEventType, eventType));
        }
    }

    public void Dispose()
    {
        if (_ownsMeter)
        {
            _meter.Dispose();
        }
    }

    private static void TagCloudEvent(Activity activity, MessageEnvelope envelope)
    {
        activity.SetTag(MessagingConventions.CloudEventId, envelope.Id);
        activity.SetTag(MessagingConventions.CloudEventSource, envelope.Source);
        activity.SetTag(MessagingConventions.CloudEventType, envelope.Type);
        activity.SetTag(MessagingConventions.CloudEventSpecVersion, envelope.SpecVersion);
    }
}
