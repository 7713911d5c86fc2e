using System;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Missive.Diagnostics;
using Missive.Serialization;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// The default <see cref="IMessagePublisher"/>: envelope factory, then the publishing middleware, then (inside a
/// producer span) the FIFO ids, the trace context, the route's wrapper and the transport.
/// </summary>
internal sealed class MessagePublisher : IMessagePublisher
{
    private readonly IEnvelopeFactory _factory;
    private readonly OutboundMessageWriter _writer;
    private readonly IMessageTransport _transport;
    private readonly BusConfiguration _configuration;
    private readonly BusTelemetry _telemetry;
    private readonly IServiceProvider _services;
    private readonly Func<Type, bool> _isRegistered;
    private readonly bool _logContent;
    private PublishStep? _pipeline;

    public MessagePublisher(IEnvelopeFactory factory, OutboundMessageWriter writer, IMessageTransport transport, BusConfiguration configuration, BusTelemetry telemetry, IServiceProvider services, Func<Type, bool> isRegistered, bool logContent)
    {
        _isRegistered = isRegistered;
        _logContent = logContent;
        _factory = factory;
        _writer = writer;
        _transport = transport;
        _configuration = configuration;
        _telemetry = telemetry;
        _services = services;
    }

    public async Task<MessageEnvelope<T>> PublishAsync<T>(T message, PublishOptions? options = null, CancellationToken cancellationToken = default)
    {
        if (message is null)
        {
            throw new ArgumentNullException(nameof(message), "A message to publish must not be null: an envelope carries its data.");
        }

        if (!_configuration.Routes.TryGetValue(typeof(T), out MessageRoute? route))
        {
            throw NoRoute(typeof(T));
        }

        CheckIds(options);
        MessageEnvelope<T> envelope = options?.TypeIdentifier is { } typeIdentifier ? _factory.CreateEnvelope(message, typeIdentifier) : _factory.CreateEnvelope(message);
        if (options?.ConfigureEnvelope is { } configure)
        {
            try
            {
                configure(envelope);
            }
            catch (Exception e) when (IsApplicationFailure(e, cancellationToken))
            {
                throw UserCodeException.Threw("PublishOptions.ConfigureEnvelope callback", e, _logContent);
            }
        }

        if (_configuration.PublishMiddleware.Count == 0)
        {
            await SendAsync(envelope, route, options, cancellationToken).ConfigureAwait(false);
        }
        else
        {
            var context = new PublishContext(envelope, route.Target, options ?? new PublishOptions(), _services, cancellationToken)
            {
                Publisher = this,
                Send = Terminal<T>.Send,
            };
            try
            {
                await (_pipeline ??= BuildPipeline())(context).ConfigureAwait(false);
            }
            catch (PipelineException e)
            {
                // A middleware misused the pipeline (called its next step twice): it threw nothing of its own.
                string seam = "publish middleware (" + MiddlewareNames() + ")";
                throw new UserCodeException(seam, null, $"The {seam} misused the pipeline: {e.Message}", null);
            }
            catch (Exception e) when (IsApplicationFailure(e, cancellationToken))
            {
                // A middleware threw (before or after the send; the message was sent only if it got that far).
                throw UserCodeException.Threw("publish middleware (" + MiddlewareNames() + ")", e, _logContent);
            }
        }

        return envelope;
    }

    /// <summary>
    /// Whether an exception is the application's code failing (rather than Missive's typed errors, the caller's own
    /// cancellation, or a process-fatal exception), to be reported as a <see cref="UserCodeException"/>.
    /// </summary>
    private static bool IsApplicationFailure(Exception e, CancellationToken cancellationToken)
        => e is not MissiveException && !ContentSafety.IsFatal(e) && !(e is OperationCanceledException && cancellationToken.IsCancellationRequested);

    private string MiddlewareNames()
    {
        var names = new string[_configuration.PublishMiddleware.Count];
        for (int i = 0; i < names.Length; i++)
        {
            names[i] = _configuration.PublishMiddleware[i].Name;
        }

        return string.Join(", ", names);
    }

    /// <summary>FIFO ids the caller gives must be ones SQS and SNS take.</summary>
    private static void CheckIds(PublishOptions? options)
    {
        if (options is null)
        {
            return;
        }

        if (SqsRules.FifoIdProblem(options.MessageGroupId) is { } group)
        {
            throw new ArgumentException($"PublishOptions.MessageGroupId {group}.", nameof(options));
        }

        if (SqsRules.FifoIdProblem(options.MessageDeduplicationId) is { } deduplication)
        {
            throw new ArgumentException($"PublishOptions.MessageDeduplicationId {deduplication}.", nameof(options));
        }
    }

    /// <summary>What to write for a type with no publisher: first its registration, if it has none.</summary>
    private MessageBusConfigurationException NoRoute(Type type)
        => new(_isRegistered(type)
            ? $"No publisher is configured for {type.FullName}: add AddSqsPublisher<{type.Name}>, AddSnsPublisher<{type.Name}> or AddEventBridgePublisher<{type.Name}>."
            : $"{type.FullName} is not a registered message type: add AddMessageType<{type.Name}>(\"its.type.identifier\"), and a publisher for it (AddSqsPublisher<{type.Name}>, AddSnsPublisher<{type.Name}> or AddEventBridgePublisher<{type.Name}>).");

    /// <summary>The middleware in registration order (the first outermost) around the send; built once, as publishing middleware are singletons.</summary>
    private PublishStep BuildPipeline()
    {
        PublishStep next = static async context => context.MessageId = await context.Send!(context.Publisher!, context).ConfigureAwait(false);
        for (int i = _configuration.PublishMiddleware.Count - 1; i >= 0; i--)
        {
            var step = (IPublishMiddleware)_services.GetRequiredService(_configuration.PublishMiddleware[i]);
            PublishStep inner = next;
            next = context => step.InvokeAsync(context, inner);
        }

        return next;
    }

    /// <summary>Writes the envelope for its route and sends it, inside a producer span; returns the transport's message id.</summary>
    private async Task<string> SendAsync<T>(MessageEnvelope<T> envelope, MessageRoute route, PublishOptions? options, CancellationToken cancellationToken)
    {
        EnvelopeFormat? format = options?.Format ?? route.Format;
        string? groupId = options?.MessageGroupId;
        string? deduplicationId = options?.MessageDeduplicationId;
        if (route.IsFifo && _configuration.FifoIds.TryGetValue(typeof(T), out FifoIdSelector? selector) && envelope.Message is { } message)
        {
            var typed = (FifoIdSelector<T>)selector;
            string seam = "FIFO id selector of " + typeof(T).Name;
            try
            {
                groupId ??= typed.GroupId(message);
                deduplicationId ??= typed.DeduplicationId(message);
            }
            catch (Exception e) when (IsApplicationFailure(e, cancellationToken))
            {
                throw UserCodeException.Threw(seam, e, _logContent);
            }

            if ((groupId is null ? "is missing" : SqsRules.FifoIdProblem(groupId)) is { } problem)
            {
                throw new UserCodeException(seam, null, $"The {seam} answered a message group id that {problem}; nothing was sent.", null);
            }

            if (SqsRules.FifoIdProblem(deduplicationId) is { } deduplicationProblem)
            {
                throw new UserCodeException(seam, null, $"The {seam} answered a deduplication id that {deduplicationProblem}; nothing was sent.", null);
            }
        }

        (string system, string operation) = route.Kind switch
        {
            RouteKind.Sqs => (MessagingConventions.AwsSqs, MessagingConventions.SendName),
            RouteKind.Sns => (MessagingConventions.AwsSns, MessagingConventions.PublishName),
            _ => (MessagingConventions.AwsEventBridge, MessagingConventions.PutEventsName),
        };
        using Activity? activity = BusTelemetry.StartPublish(system, operation, route.Target, envelope);
        BusTelemetry.InjectTraceContext(envelope);
        long size = -1; // the body's UTF-8 size, once it is written
        long started = Stopwatch.GetTimestamp();
        try
        {
            string messageId;
            switch (route.Kind)
            {
                case RouteKind.Sqs:
                    SqsSendRequest request = _writer.ToSqs(envelope, route.Target, format, groupId, deduplicationId);
                    size = request.Utf8Length;
                    messageId = await _transport.SendAsync(request, cancellationToken).ConfigureAwait(false);
                    break;
                case RouteKind.Sns:
                    SnsPublishRequest publish = _writer.ToSns(envelope, route.Target, format, options?.Subject, groupId, deduplicationId);
                    size = SizeOf(publish.Message);
                    messageId = await _transport.PublishAsync(publish, cancellationToken).ConfigureAwait(false);
                    break;
                default:
                    EventBridgeEntry entry = _writer.ToEventBridge(envelope, route.Target, format);
                    size = SizeOf(entry.Detail);
                    messageId = await _transport.PutEventAsync(entry, cancellationToken).ConfigureAwait(false);
                    break;
            }

            activity?.SetTag(MessagingConventions.MessageId, messageId);
            _telemetry.Published(system, operation, route.Target, envelope.Type, MeasuredSize(size), Stopwatch.GetElapsedTime(started), null);
            return messageId;
        }
        catch (Exception e)
        {
            BusTelemetry.Fail(activity, e, _logContent);
            _telemetry.Published(system, operation, route.Target, envelope.Type, MeasuredSize(size), Stopwatch.GetElapsedTime(started), e);
            throw;
        }
    }

    /// <summary>A text body's UTF-8 size when the size is measured, else -1 (not counted for nothing).</summary>
    private long SizeOf(string body) => _telemetry.MeasuresEnvelopeSize ? System.Text.Encoding.UTF8.GetByteCount(body) : -1;

    /// <summary>The body's size when the size is measured and the body was written, else -1.</summary>
    private long MeasuredSize(long size) => _telemetry.MeasuresEnvelopeSize ? size : -1;

    /// <summary>The send of a message type, for the end of the middleware pipeline, where the envelope is no longer typed.</summary>
    private static class Terminal<T>
    {
        public static readonly Func<MessagePublisher, PublishContext, Task<string>> Send = static (publisher, context) =>
        {
            if (context.Sent)
            {
                throw new PipelineException("The next step of the publish pipeline was called twice: the message was sent once, and is not sent again.");
            }

            context.Sent = true;
            return publisher.SendAsync((MessageEnvelope<T>)context.Envelope, publisher._configuration.Routes[typeof(T)], context.Options, context.CancellationToken);
        };
    }
}
