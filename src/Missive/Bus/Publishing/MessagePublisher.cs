using System;
using System.Collections.Generic;
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
internal sealed partial class MessagePublisher : IMessagePublisher, IDisposable
{
    private readonly IEnvelopeFactory _factory;
    private readonly OutboundMessageWriter _writer;
    private readonly IMessageTransport _transport;
    private readonly IMessageTransport _sends; // the transport, or the coalescer in front of it
    private readonly PublishCoalescer? _coalescer;
    private readonly BusConfiguration _configuration;
    private readonly BusTelemetry _telemetry;
    private readonly IServiceProvider _services;
    private readonly Func<Type, bool> _isRegistered;
    private readonly bool _logContent;
    private readonly TimeProvider _timeProvider;
    private readonly PublishingHealth _health;
    private PublishStep? _pipeline;

    public MessagePublisher(IEnvelopeFactory factory, OutboundMessageWriter writer, IMessageTransport transport, BusConfiguration configuration, BusTelemetry telemetry, IServiceProvider services, Func<Type, bool> isRegistered, bool logContent, TimeProvider timeProvider, PublishingHealth health)
    {
        _health = health;
        _timeProvider = timeProvider;
        _isRegistered = isRegistered;
        _logContent = logContent;
        _factory = factory;
        _writer = writer;
        _transport = transport;
        _coalescer = configuration.CoalescingWindow is { } window && window > TimeSpan.Zero ? new PublishCoalescer(transport, window, timeProvider) : null;
        _sends = _coalescer ?? transport;
        _configuration = configuration;
        _telemetry = telemetry;
        _services = services;
    }

    public Task<MessageEnvelope<T>> PublishAsync<T>(T message, PublishOptions? options = null, CancellationToken cancellationToken = default)
        => PublishAsync(message, options, _sends, cancellationToken);

    /// <summary>Stops the coalescer's gathering windows (the container disposes the publisher with itself).</summary>
    public void Dispose() => _coalescer?.Dispose();

    /// <summary>
    /// Publishes every message as <see cref="PublishAsync{T}(T, PublishOptions?, CancellationToken)"/> does (the
    /// envelope, the middleware, the FIFO ids, the checks, a span and the metrics, each message on its own), but their
    /// sends meet in a <see cref="BatchGatherer"/>, which makes the transport's batch calls in the batch's order.
    /// </summary>
    public async Task<IReadOnlyList<PublishResult<T>>> PublishBatchAsync<T>(IReadOnlyList<T> messages, Func<T, PublishOptions?>? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(messages);
        if (!_configuration.Routes.ContainsKey(typeof(T)))
        {
            throw NoRoute(typeof(T));
        }

        var results = new PublishResult<T>[messages.Count];
        if (messages.Count == 0)
        {
            return results;
        }

        using var gatherer = new BatchGatherer(_transport, messages.Count, _timeProvider, cancellationToken);
        var entries = new Task[messages.Count];
        for (int i = 0; i < messages.Count; i++)
        {
            entries[i] = PublishEntryAsync(messages[i], i, options, gatherer, results, cancellationToken);
        }

        gatherer.AllStarted();

        await Task.WhenAll(entries).ConfigureAwait(false);
        return results;
    }

    /// <summary>One message of a batch: its result, whatever happens to it; the gatherer is told when it will not send.</summary>
    private async Task PublishEntryAsync<T>(T message, int index, Func<T, PublishOptions?>? options, BatchGatherer gatherer, PublishResult<T>[] results, CancellationToken cancellationToken)
    {
        BatchGatherer.Entry entry = gatherer.NewEntry(index);
        try
        {
            PublishOptions? chosen = null;
            if (options is not null && message is not null)
            {
                try
                {
                    chosen = options(message);
                }
                catch (Exception e) when (IsApplicationFailure(e, cancellationToken))
                {
                    throw UserCodeException.Threw("options callback of PublishBatchAsync", e, _logContent);
                }
            }

            results[index] = new PublishResult<T>(index, message, await PublishAsync(message, chosen, entry, cancellationToken).ConfigureAwait(false), null);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            results[index] = new PublishResult<T>(index, message, null, e); // this message's error; the others go on
        }
        finally
        {
            entry.Finish(); // an entry that never reached its send lets the others go
        }
    }

    private async Task<MessageEnvelope<T>> PublishAsync<T>(T message, PublishOptions? options, IMessageTransport transport, CancellationToken cancellationToken)
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
            await SendAsync(envelope, route, options, transport, cancellationToken).ConfigureAwait(false);
        }
        else
        {
            var context = new PublishContext(envelope, route.Target, options ?? new PublishOptions(), _services, cancellationToken)
            {
                Publisher = this,
                Transport = transport,
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
            catch (Exception e) when (ReferenceEquals(e, context.SendFailure))
            {
                throw; // the send's own failure (a refused option, the transport's error) let through: not the middleware's
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

    /// <summary>What to write for a type with no publisher: first its registration, if it has none.</summary>
    private MessageBusConfigurationException NoRoute(Type type)
        => new(_isRegistered(type)
            ? $"No publisher is configured for {type.FullName}: add AddSqsPublisher<{type.Name}>, AddSnsPublisher<{type.Name}> or AddEventBridgePublisher<{type.Name}>."
            : $"{type.FullName} is not a registered message type: add AddMessageType<{type.Name}>(\"its.type.identifier\"), and a publisher for it (AddSqsPublisher<{type.Name}>, AddSnsPublisher<{type.Name}> or AddEventBridgePublisher<{type.Name}>).");

    /// <summary>The middleware in registration order (the first outermost) around the send; built once, as publishing middleware are singletons.</summary>
    private PublishStep BuildPipeline()
    {
        PublishStep next = static async context =>
        {
            try
            {
                context.MessageId = await context.Send!(context.Publisher!, context).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                context.SendFailure = e; // Missive's own: it passes through the middleware to the caller as it is
                throw;
            }
        };
        for (int i = _configuration.PublishMiddleware.Count - 1; i >= 0; i--)
        {
            var step = (IPublishMiddleware)_services.GetRequiredService(_configuration.PublishMiddleware[i]);
            PublishStep inner = next;
            next = context => step.InvokeAsync(context, inner);
        }

        return next;
    }

    /// <summary>Writes the envelope for its route and sends it, inside a producer span; returns the transport's message id.</summary>
    private async Task<string> SendAsync<T>(MessageEnvelope<T> envelope, MessageRoute route, PublishOptions? options, IMessageTransport transport, CancellationToken cancellationToken)
    {
        CheckDeliveryOptions(options, route);
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
        bool withoutEnvelope = _configuration.PublishedWithoutEnvelope.Count > 0 && _configuration.PublishedWithoutEnvelope.Contains(typeof(T));
        string? massTransitUrn = _configuration.PublishedAsMassTransit.Count > 0 ? _configuration.PublishedAsMassTransit.GetValueOrDefault(typeof(T)) : null;
        string? nServiceBusType = _configuration.PublishedAsNServiceBus.Count > 0 ? _configuration.PublishedAsNServiceBus.GetValueOrDefault(typeof(T)) : null;
        long started = Stopwatch.GetTimestamp();
        try
        {
            string messageId;
            switch (route.Kind)
            {
                case RouteKind.Sqs:
                    // A transport done with the body when the call is over (a batch publish's or coalesced send's task,
                    // when its batch call is) gets it in a pooled array, cleared and given back then; any other, in an
                    // array of its own, which it may keep.
                    SqsSendRequest request = massTransitUrn is not null ? _writer.ToSqsAsMassTransit(envelope, route.Target, massTransitUrn, groupId, deduplicationId)
                        : nServiceBusType is not null ? _writer.ToSqsAsNServiceBus(envelope, route.Target, nServiceBusType, groupId, deduplicationId)
                        : withoutEnvelope ? _writer.ToSqsWithoutEnvelope(envelope, route.Target, groupId, deduplicationId)
                        : _transport.IsDoneWithBodiesWhenCallsComplete
                            ? _writer.ToSqsOnRentedBody(envelope, route.Target, format, groupId, deduplicationId)
                            : _writer.ToSqs(envelope, route.Target, format, groupId, deduplicationId);
                    size = request.Utf8Length;
                    try
                    {
                        messageId = await transport.SendAsync(WithOptions(request, options), cancellationToken).ConfigureAwait(false);
                    }
                    finally
                    {
                        request.RentedBody?.Release(); // back to the pool now, or when a batch call that holds it ends
                    }

                    break;
                case RouteKind.Sns:
                    SnsPublishRequest publish = WithOptions(
                        massTransitUrn is not null ? _writer.ToSnsAsMassTransit(envelope, route.Target, massTransitUrn, options?.SnsSubject, groupId, deduplicationId)
                        : nServiceBusType is not null ? _writer.ToSnsAsNServiceBus(envelope, route.Target, nServiceBusType, options?.SnsSubject, groupId, deduplicationId)
                        : withoutEnvelope ? _writer.ToSnsWithoutEnvelope(envelope, route.Target, options?.SnsSubject, groupId, deduplicationId)
                        : _writer.ToSns(envelope, route.Target, format, options?.SnsSubject, groupId, deduplicationId),
                        options);
                    size = SizeOf(publish.Message);
                    messageId = await transport.PublishAsync(publish, cancellationToken).ConfigureAwait(false);
                    break;
                default:
                    EventBridgeEntry entry = withoutEnvelope ? _writer.ToEventBridgeWithoutEnvelope(envelope, route.Target) : _writer.ToEventBridge(envelope, route.Target, format);
                    size = SizeOf(entry.Detail);
                    messageId = await transport.PutEventAsync(entry, cancellationToken).ConfigureAwait(false);
                    break;
            }

            activity?.SetTag(MessagingConventions.MessageId, messageId);
            _telemetry.Published(system, operation, route.Target, envelope.Type, MeasuredSize(size), Stopwatch.GetElapsedTime(started), null);
            _health.Succeeded(route.Target);
            return messageId;
        }
        catch (Exception e)
        {
            if (e is MessageTransportException failed)
            {
                _health.Failed(route.Target, failed, _timeProvider.GetUtcNow());
            }

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
            return publisher.SendAsync((MessageEnvelope<T>)context.Envelope, publisher._configuration.Routes[typeof(T)], context.Options, context.Transport!, context.CancellationToken);
        };
    }
}
