using System;
using System.Collections.Generic;
using System.IO;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Bus;
using Missive.Transport;

namespace Missive.Lambda;

/// <summary>
/// Handles the SQS event a Lambda function receives with the bus's handlers, and returns the partial batch response,
/// so that Lambda delivers again only the records that failed.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>The event is the one Lambda documents (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html). Resolve
/// the processor from the service provider built with <c>AddMessageBus</c>; no Lambda package is needed.</item>
/// <item>Each record goes the way of a polled message: its body is read as a raw, SNS-wrapped or EventBridge-wrapped
/// envelope, and its handler runs with the handling middleware in a DI scope of its own, inside a consumer span.</item>
/// <item>A record that cannot be read, has no handler, fails or is retried by choice is reported in
/// <see cref="SqsBatchResponse.BatchItemFailures"/>; nothing a record holds makes the call throw.</item>
/// <item>Records of a FIFO queue are handled in order within their message group (different groups side by side);
/// after the first failure in a group, the group's later records are reported without being handled, so that Lambda
/// delivers them again after it, in order.</item>
/// <item>Only an event that is not an SQS event at all (no <c>Records</c> array, or a record without a
/// <c>messageId</c>, which could not be reported on its own) throws, and Lambda then retries the whole batch.</item>
/// </list>
/// </remarks>
public sealed class SqsEventProcessor
{
    private readonly MessageDispatcher _dispatcher;
    private readonly IMessageTransport? _transport;
    private readonly SqsEventProcessorOptions _options;
    private readonly ILogger _logger;

    internal SqsEventProcessor(MessageDispatcher dispatcher, IMessageTransport? transport, SqsEventProcessorOptions options, ILogger logger)
    {
        _dispatcher = dispatcher;
        _transport = transport;
        _options = options;
        _logger = logger;
    }

    /// <summary>Handles an SQS event given as UTF-8 JSON.</summary>
    /// <param name="sqsEvent">The event.</param>
    /// <param name="cancellationToken">Cancelled when the function must stop (for example shortly before its timeout): records not yet handled are reported failed.</param>
    /// <returns>The partial batch response.</returns>
    /// <exception cref="ArgumentException">The input is not an SQS event.</exception>
    public async Task<SqsBatchResponse> ProcessAsync(ReadOnlyMemory<byte> sqsEvent, CancellationToken cancellationToken = default)
    {
        using JsonDocument document = Parse(sqsEvent);
        return await ProcessAsync(document.RootElement, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Handles an SQS event read from a stream (the input of a Lambda handler that takes a <see cref="Stream"/>).</summary>
    /// <param name="sqsEvent">The event. Must not be null.</param>
    /// <param name="cancellationToken">See <see cref="ProcessAsync(ReadOnlyMemory{byte}, CancellationToken)"/>.</param>
    /// <returns>The partial batch response.</returns>
    /// <exception cref="ArgumentException">The input is not an SQS event.</exception>
    public async Task<SqsBatchResponse> ProcessAsync(Stream sqsEvent, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(sqsEvent);
        using var buffer = new MemoryStream();
        await sqsEvent.CopyToAsync(buffer, cancellationToken).ConfigureAwait(false);
        return await ProcessAsync(buffer.GetBuffer().AsMemory(0, (int)buffer.Length), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Handles an SQS event given as a JSON value.</summary>
    /// <param name="sqsEvent">The event.</param>
    /// <param name="cancellationToken">See <see cref="ProcessAsync(ReadOnlyMemory{byte}, CancellationToken)"/>.</param>
    /// <returns>The partial batch response.</returns>
    /// <exception cref="ArgumentException">The input is not an SQS event.</exception>
    public async Task<SqsBatchResponse> ProcessAsync(JsonElement sqsEvent, CancellationToken cancellationToken = default)
    {
        List<LambdaSqsRecord> records = LambdaSqsRecord.ReadAll(sqsEvent);
        bool[] failed = new bool[records.Count];
        using var slots = new SemaphoreSlim(Math.Max(1, _options.MaxConcurrency));
        var running = new List<Task>(records.Count);
        if (records.Exists(static r => r.IsFifo))
        {
            // One task per message group, handling its records in order; groups run side by side within the slots.
            var groups = new Dictionary<string, List<int>>(StringComparer.Ordinal);
            for (int i = 0; i < records.Count; i++)
            {
                string group = records[i].GroupId ?? string.Empty; // records whose group cannot be told are kept in order together
                if (!groups.TryGetValue(group, out List<int>? indexes))
                {
                    groups[group] = indexes = [];
                }

                indexes.Add(i);
            }

            foreach (List<int> indexes in groups.Values)
            {
                running.Add(ProcessGroupAsync(records, indexes, failed, slots, cancellationToken));
            }
        }
        else
        {
            for (int i = 0; i < records.Count; i++)
            {
                running.Add(ProcessWithSlotAsync(records[i], i, failed, slots, cancellationToken));
            }
        }

        await Task.WhenAll(running).ConfigureAwait(false);
        var failures = new List<SqsBatchItemFailure>();
        for (int i = 0; i < records.Count; i++)
        {
            if (failed[i])
            {
                failures.Add(new SqsBatchItemFailure(records[i].MessageId));
            }
        }

        return new SqsBatchResponse(failures);
    }

    private static JsonDocument Parse(ReadOnlyMemory<byte> sqsEvent)
    {
        try
        {
            return JsonDocument.Parse(sqsEvent);
        }
        catch (JsonException e)
        {
            throw new ArgumentException("The input is not JSON, so not an SQS event.", nameof(sqsEvent), e);
        }
    }

    /// <summary>Handles the records of one FIFO message group in order; after the first that fails, the rest are reported without being handled.</summary>
    private async Task ProcessGroupAsync(List<LambdaSqsRecord> records, List<int> indexes, bool[] failed, SemaphoreSlim slots, CancellationToken cancellationToken)
    {
        bool stop = false;
        foreach (int i in indexes)
        {
            if (stop)
            {
                failed[i] = true;
                continue;
            }

            await ProcessWithSlotAsync(records[i], i, failed, slots, cancellationToken).ConfigureAwait(false);
            stop = failed[i];
        }
    }

    private async Task ProcessWithSlotAsync(LambdaSqsRecord record, int index, bool[] failed, SemaphoreSlim slots, CancellationToken cancellationToken)
    {
        await slots.WaitAsync(CancellationToken.None).ConfigureAwait(false);
        try
        {
            failed[index] = !await ProcessAsync(record, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            slots.Release();
        }
    }

    /// <summary>Handles one record; returns whether Lambda may delete it.</summary>
    private async Task<bool> ProcessAsync(LambdaSqsRecord record, CancellationToken cancellationToken)
    {
        if (record.Message is not { } message)
        {
            LambdaLog.RecordUnreadable(_logger, record.MessageId, record.Queue, record.Problem!);
            return false;
        }

        try
        {
            (DispatchOutcome outcome, string? eventType) = await _dispatcher.DispatchAsync(message, record.Queue, _options.NativeMessages, cancellationToken).ConfigureAwait(false);
            return outcome switch
            {
                DispatchOutcome.Done => true,
                DispatchOutcome.DeadLetter => await _dispatcher.TryDeadLetterAsync(_transport, _options.DeadLetterQueue, message, record.Queue, eventType).ConfigureAwait(false),
                _ => false,
            };
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            BusLog.ProcessingFailed(_logger, message.MessageId, record.Queue, ContentSafety.ForLog(e, _dispatcher.LogMessageContent));
            return false;
        }
    }
}
