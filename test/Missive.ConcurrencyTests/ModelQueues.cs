using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Coyote.Random;
using Missive.Transport;

namespace Missive.ConcurrencyTests;

/// <summary>
/// A model of SQS's send side with faults the engine chooses per call: every entry taken, the call refused whole before
/// it took effect (a 500), the call taken but its answer lost, some entries failed on the service's side or the
/// sender's, an answer that comes only after ten seconds of the fake clock, or (with <paramref name="lateCalls"/>) a
/// call that ignores its token and takes its entries only after the batch call's deadline, reading their bodies then (a
/// transport that cannot take back a request it sent). It records what it stored, in order, and in which call each entry
/// was presented.
/// </summary>
internal sealed class ModelQueues(TimeProvider clock, bool lateCalls = false) : IMessageTransport
{
    /// <summary>How long a late call takes: past the batch call's deadline (two minutes).</summary>
    public static readonly TimeSpan LateCall = TimeSpan.FromMinutes(2) + TimeSpan.FromSeconds(10);

    public const string AnswerLost = "the call took effect but its answer was lost";

    private readonly object _gate = new();
    private readonly Generator _random = Generator.Create();
    private readonly List<string> _stored = [];
    private readonly Dictionary<string, int> _presented = [];
    private readonly List<int> _faults = [];
    private int _calls;
    private int _underWay;

    /// <summary>Gets the ids stored, in the order the service took them.</summary>
    public IReadOnlyList<string> Stored
    {
        get
        {
            lock (_gate)
            {
                return [.. _stored];
            }
        }
    }

    /// <summary>Gets the fault chosen for each call, in order (0: none; see the class summary).</summary>
    public IReadOnlyList<int> Faults
    {
        get
        {
            lock (_gate)
            {
                return [.. _faults];
            }
        }
    }

    /// <summary>Gets the call each id was last presented in.</summary>
    public IReadOnlyDictionary<string, int> Presented
    {
        get
        {
            lock (_gate)
            {
                return new Dictionary<string, int>(_presented);
            }
        }
    }

    /// <summary>Gets how many calls have not ended (a late one runs on after the bus abandoned it).</summary>
    public int CallsUnderWay => Volatile.Read(ref _underWay);

    public async Task<IReadOnlyList<BatchEntryResult>> SendBatchAsync(IReadOnlyList<SqsSendRequest> requests, CancellationToken cancellationToken = default)
    {
        Interlocked.Increment(ref _underWay);
        try
        {
            return await CallAsync(requests, cancellationToken);
        }
        finally
        {
            Interlocked.Decrement(ref _underWay);
        }
    }

    private async Task<IReadOnlyList<BatchEntryResult>> CallAsync(IReadOnlyList<SqsSendRequest> requests, CancellationToken cancellationToken)
    {
        int call;
        lock (_gate)
        {
            call = ++_calls;
            foreach (SqsSendRequest request in requests)
            {
                _presented[IdOf(request)] = call;
            }
        }

        await Task.Yield(); // the call is under way
        int fault = _random.NextInteger(lateCalls ? 6 : 5);
        lock (_gate)
        {
            _faults.Add(fault);
        }

        switch (fault)
        {
            case 1:
                throw new MessageTransportException("InternalError: the call was refused whole") { ErrorCode = "InternalError", StatusCode = 500, FailureKind = TransportFailureKind.Transient };
            case 2:
                Store(requests);
                throw new MessageTransportException(AnswerLost) { ErrorCode = "RequestTimeout", FailureKind = TransportFailureKind.Transient };
            case 3:
                var results = new BatchEntryResult[requests.Count];
                for (int i = 0; i < results.Length; i++)
                {
                    int outcome = _random.NextInteger(3);
                    if (outcome == 0)
                    {
                        Store([requests[i]]);
                        results[i] = BatchEntryResult.Success(i, "id-" + IdOf(requests[i]));
                    }
                    else
                    {
                        results[i] = new BatchEntryResult(i, null, outcome == 1 ? "InternalError" : "InvalidParameterValue", "refused", SenderFault: outcome == 2);
                    }
                }

                return results;
            case 4:
                await Missive.Bus.ClockDelay.WaitAsync(clock, TimeSpan.FromSeconds(10), cancellationToken); // an answer that comes late
                goto default;
            case 5:
                await Missive.Bus.ClockDelay.WaitAsync(clock, LateCall, CancellationToken.None); // abandoned by the bus, and taken after all
                goto default;
            default:
                Store(requests);
                var taken = new BatchEntryResult[requests.Count];
                for (int i = 0; i < taken.Length; i++)
                {
                    taken[i] = BatchEntryResult.Success(i, "id-" + IdOf(requests[i]));
                }

                return taken;
        }
    }

    /// <summary>
    /// <c>true</c>: the model reads a body only while its call runs, so the bus hands it bodies in pooled arrays, and
    /// <see cref="IdOf"/> finds out whether one was taken back (cleared) while a call still read it.
    /// </summary>
    public bool IsDoneWithBodiesWhenCallsComplete => true;

    public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException("the scenarios send in batches");

    public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    /// <summary>The note id in a body the bus wrote (<c>"Id":"N-3"</c>); a body already taken back by the bus (its pooled array cleared or reused) breaks an invariant.</summary>
    public static string IdOf(SqsSendRequest request)
    {
        string body = System.Text.Encoding.UTF8.GetString(request.Utf8Body.Span);
        int start = body.IndexOf("\"N-", StringComparison.Ordinal) + 1;
        Microsoft.Coyote.Specifications.Specification.Assert(start > 0 && body.StartsWith('{'), $"the transport read a body the bus had already taken back while its call ran: '{body[..Math.Min(body.Length, 40)]}'");
        return body[start..body.IndexOf('"', start)];
    }

    private void Store(IReadOnlyList<SqsSendRequest> requests)
    {
        lock (_gate)
        {
            foreach (SqsSendRequest request in requests)
            {
                _stored.Add(IdOf(request));
            }
        }
    }
}
