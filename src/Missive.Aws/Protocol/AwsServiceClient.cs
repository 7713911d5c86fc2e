using System;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;

namespace Missive.Aws.Protocol;

/// <summary>
/// Sends one operation of one service: each attempt is a new request over the same body bytes, sent through an
/// <see cref="HttpClient"/> whose handler chain signs it (<see cref="SigV4Handler"/>), bounded by the attempt timeout,
/// and retried by <see cref="AwsRetryStrategy"/>. Answers are read into pooled buffers, never past what the service
/// can send (<see cref="AwsAnswer"/>). The last failure becomes a <see cref="MessageTransportException"/> with the
/// service's error code and request id.
/// </summary>
/// <remarks>
/// A request the service refuses as signed at the wrong time (the host's clock is off) is signed again with the
/// service's time, taken from the answer's <c>Date</c> header, and sent again at once; every later request is signed
/// with the corrected time (logged once per correction), as the AWS SDKs do.
/// </remarks>
internal sealed class AwsServiceClient
{
    private static readonly string UserAgent = new ProductInfoHeaderValue("missive-aws", typeof(AwsServiceClient).Assembly.GetName().Version?.ToString(3) ?? "0").ToString();

    private readonly HttpClient _http;
    private readonly AwsRetryStrategy _retry;
    private readonly TimeSpan _attemptTimeout;
    private readonly AwsProtocol _protocol;
    private readonly SigV4Signer? _signer;
    private readonly ILogger _logger;
    private readonly (string Name, string Value)[] _headers;

    /// <param name="serviceName">The service, for messages (for example <c>SQS</c>).</param>
    /// <param name="endpoint">Where requests go.</param>
    /// <param name="protocol">How the service shapes errors.</param>
    /// <param name="http">A client whose handler chain signs requests for this service.</param>
    /// <param name="retry">The retry strategy, shared by the services of one transport.</param>
    /// <param name="attemptTimeout">How long one attempt may take (a long poll's wait comes on top).</param>
    /// <param name="signer">The signer of the chain, whose clock is corrected when the service says it is off; or <c>null</c>.</param>
    /// <param name="logger">Where a clock correction is logged.</param>
    /// <param name="headers">Headers every request of this service carries.</param>
    /// <param name="site">The service's part of every error: its name and IAM prefix, the signing region, where the credentials come from (the resource is added per call).</param>
    public AwsServiceClient(string serviceName, Uri endpoint, AwsProtocol protocol, HttpClient http, AwsRetryStrategy retry, TimeSpan attemptTimeout, SigV4Signer? signer, ILogger logger, AwsCallSite site, params (string Name, string Value)[] headers)
    {
        _headers = headers;
        _site = site;
        ServiceName = serviceName;
        Endpoint = endpoint;
        _protocol = protocol;
        _http = http;
        _retry = retry;
        _attemptTimeout = attemptTimeout;
        _signer = signer;
        _logger = logger;
    }

    private readonly AwsCallSite _site;

    public string ServiceName { get; }

    public Uri Endpoint { get; }

    /// <summary>Posts <paramref name="body"/> to the endpoint with the given headers, retrying as the strategy says.</summary>
    /// <param name="operation">The operation, for errors (for example <c>SendMessage</c>).</param>
    /// <param name="contentType">The body's content type.</param>
    /// <param name="target">The <c>X-Amz-Target</c> header (JSON protocols), or <c>null</c>.</param>
    /// <param name="body">The request body: the same bytes for every attempt.</param>
    /// <param name="longPoll">How long the service may hold the request (a long poll's wait), added to the attempt timeout.</param>
    /// <param name="answerLimit">The largest answer the service can send for this call (<see cref="AwsAnswer"/>).</param>
    /// <param name="cancellationToken">Cancels the call (then <see cref="OperationCanceledException"/>, never a transport exception).</param>
    /// <param name="checkAnswer">Inspects a successful answer inside the attempt; a failure it returns is handled as the attempt's failure (retried when transient).</param>
    /// <param name="resource">The queue, topic or bus, as configured and as resolved, for errors; or <c>null</c>.</param>
    /// <returns>The answer; dispose it.</returns>
    /// <exception cref="MessageTransportException">The call failed for good.</exception>
    public async Task<AwsResponse> PostAsync(string operation, AwsContentType contentType, string? target, ReadOnlyMemory<byte> body, TimeSpan longPoll, int answerLimit, CancellationToken cancellationToken, Func<AwsResponse, AwsServiceFailure?>? checkAnswer = null, string? resource = null)
    {
        int attempts = 0;
        try
        {
            return await _retry.ExecuteAsync(
                async ct =>
                {
                    attempts++;
                    try
                    {
                        return await SendOnceAsync(operation, contentType, target, body, longPoll, answerLimit, checkAnswer, ct).ConfigureAwait(false);
                    }
                    catch (AwsServiceFailure failure) when (failure.ServiceTime is { } serviceTime && _signer?.CorrectClock(serviceTime) == true)
                    {
                        // Refused for its signing time: signed again with the service's time, once, outside the retry budget.
                        AwsLog.ClockCorrected(_logger, ServiceName, Endpoint, _signer.ClockOffset, failure.ErrorCode ?? "error");
                        return await SendOnceAsync(operation, contentType, target, body, longPoll, answerLimit, checkAnswer, ct).ConfigureAwait(false);
                    }
                },
                longPolling: longPoll > TimeSpan.Zero,
                cancellationToken).ConfigureAwait(false);
        }
        catch (AwsServiceFailure failure)
        {
            throw failure.ToTransportException(_site with { Resource = resource }, operation, attempts);
        }
    }

    private async ValueTask<AwsResponse> SendOnceAsync(string operation, AwsContentType contentType, string? target, ReadOnlyMemory<byte> body, TimeSpan longPoll, int answerLimit, Func<AwsResponse, AwsServiceFailure?>? checkAnswer, CancellationToken cancellationToken)
    {
        using var attempt = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        attempt.CancelAfter(_attemptTimeout + longPoll);
        using var request = new HttpRequestMessage(HttpMethod.Post, Endpoint) { Content = new AwsRequestContent(body, contentType, target) };
        request.Headers.TryAddWithoutValidation("User-Agent", UserAgent); // as text: no header value collection per request
        if (target is not null)
        {
            request.Headers.TryAddWithoutValidation("X-Amz-Target", target);
        }

        foreach ((string name, string value) in _headers)
        {
            request.Headers.TryAddWithoutValidation(name, value);
        }

        try
        {
            using HttpResponseMessage response = await _http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, attempt.Token).ConfigureAwait(false);
            string? requestId = AwsErrorParser.Header(response, "x-amzn-RequestId") ?? AwsErrorParser.Header(response, "x-amz-request-id");
            bool success = response.IsSuccessStatusCode;
            if (await AwsAnswer.ReadAsync(response, success ? answerLimit : AwsAnswer.ErrorLimit, attempt.Token).ConfigureAwait(false) is not { } answer)
            {
                throw success
                    ? AwsServiceFailure.TooLarge($"{ServiceName} {operation}", answerLimit, requestId)
                    : AwsErrorParser.Parse(_protocol, response, ReadOnlyMemory<byte>.Empty, bodyTooLarge: true);
            }

            if (!success)
            {
                try
                {
                    throw AwsErrorParser.Parse(_protocol, response, answer.Buffer.AsMemory(0, answer.Length), bodyTooLarge: false);
                }
                finally
                {
                    AwsAnswer.Return(answer.Buffer, answer.Length);
                }
            }

            var result = new AwsResponse(answer.Buffer, answer.Length, requestId);
            if (checkAnswer?.Invoke(result) is { } failure)
            {
                result.Dispose();
                throw failure;
            }

            return result;
        }
        catch (Exception e) when (e is HttpRequestException or System.IO.IOException)
        {
            // No answer, or one cut short (a reset connection, a truncated body): worth another attempt.
            throw AwsServiceFailure.NoResponse($"{ServiceName} {operation}", e, timedOut: false);
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            throw AwsServiceFailure.NoResponse($"{ServiceName} {operation}", e, timedOut: true);
        }
    }
}
