using System;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Aws.Protocol;

/// <summary>
/// Sends one operation of one service: each attempt is a new request built by the caller, sent through
/// an <see cref="HttpClient"/> whose handler chain signs it (AWSSDK.Core's SigV4 handler), bounded by the
/// attempt timeout, and retried by <see cref="AwsRetryStrategy"/>. The last failure becomes a
/// <see cref="MessageTransportException"/> with the service's error code and request id.
/// </summary>
internal sealed class AwsServiceClient
{
    private static readonly ProductInfoHeaderValue UserAgent = new("missive-aws", typeof(AwsServiceClient).Assembly.GetName().Version?.ToString(3) ?? "0");

    private readonly HttpClient _http;
    private readonly AwsRetryStrategy _retry;
    private readonly TimeSpan _attemptTimeout;
    private readonly AwsProtocol _protocol;
    private readonly (string Name, string Value)[] _headers;

    /// <param name="serviceName">The service, for messages (for example <c>SQS</c>).</param>
    /// <param name="endpoint">Where requests go.</param>
    /// <param name="protocol">How the service shapes errors.</param>
    /// <param name="http">A client whose handler chain signs requests for this service.</param>
    /// <param name="retry">The retry strategy, shared by the services of one transport.</param>
    /// <param name="attemptTimeout">How long one attempt may take (a long poll's wait comes on top).</param>
    /// <param name="headers">Headers every request of this service carries.</param>
    public AwsServiceClient(string serviceName, Uri endpoint, AwsProtocol protocol, HttpClient http, AwsRetryStrategy retry, TimeSpan attemptTimeout, params (string Name, string Value)[] headers)
    {
        _headers = headers;
        ServiceName = serviceName;
        Endpoint = endpoint;
        _protocol = protocol;
        _http = http;
        _retry = retry;
        _attemptTimeout = attemptTimeout;
    }

    public string ServiceName { get; }

    public Uri Endpoint { get; }

    /// <summary>Posts <paramref name="body"/> to the endpoint with the given headers, retrying as the strategy says.</summary>
    /// <param name="operation">The operation, for errors (for example <c>SendMessage</c>).</param>
    /// <param name="contentType">The body's content type.</param>
    /// <param name="target">The <c>X-Amz-Target</c> header (JSON protocols), or <c>null</c>.</param>
    /// <param name="body">The request body: the same bytes for every attempt.</param>
    /// <param name="longPoll">How long the service may hold the request (a long poll's wait), added to the attempt timeout.</param>
    /// <param name="cancellationToken">Cancels the call (then <see cref="OperationCanceledException"/>, never a transport exception).</param>
    /// <param name="checkAnswer">Inspects a successful answer inside the attempt; a failure it returns is handled as the attempt's failure (retried when transient).</param>
    /// <exception cref="MessageTransportException">The call failed for good.</exception>
    public async Task<AwsResponse> PostAsync(string operation, string contentType, string? target, byte[] body, TimeSpan longPoll, CancellationToken cancellationToken, Func<AwsResponse, AwsServiceFailure?>? checkAnswer = null)
    {
        int attempts = 0;
        try
        {
            return await _retry.ExecuteAsync(
                ct =>
                {
                    attempts++;
                    return SendOnceAsync(operation, contentType, target, body, longPoll, checkAnswer, ct);
                },
                longPolling: longPoll > TimeSpan.Zero,
                cancellationToken).ConfigureAwait(false);
        }
        catch (AwsServiceFailure failure)
        {
            throw failure.ToTransportException($"{ServiceName} {operation}", attempts);
        }
    }

    private async ValueTask<AwsResponse> SendOnceAsync(string operation, string contentType, string? target, byte[] body, TimeSpan longPoll, Func<AwsResponse, AwsServiceFailure?>? checkAnswer, CancellationToken cancellationToken)
    {
        using var attempt = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        attempt.CancelAfter(_attemptTimeout + longPoll);
        using var request = new HttpRequestMessage(HttpMethod.Post, Endpoint) { Content = new ByteArrayContent(body) };
        request.Content.Headers.ContentType = MediaTypeHeaderValue.Parse(contentType);
        request.Headers.UserAgent.Add(UserAgent);
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
            using HttpResponseMessage response = await _http.SendAsync(request, HttpCompletionOption.ResponseContentRead, attempt.Token).ConfigureAwait(false);
            byte[] answer = await response.Content.ReadAsByteArrayAsync(attempt.Token).ConfigureAwait(false);
            if (response.IsSuccessStatusCode)
            {
                var result = new AwsResponse(answer, AwsErrorParser.Header(response, "x-amzn-RequestId") ?? AwsErrorParser.Header(response, "x-amz-request-id"));
                return checkAnswer?.Invoke(result) is { } failure ? throw failure : result;
            }

            throw AwsErrorParser.Parse(_protocol, response, answer);
        }
        catch (HttpRequestException e)
        {
            throw AwsServiceFailure.NoResponse($"{ServiceName} {operation}", e, timedOut: false);
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            throw AwsServiceFailure.NoResponse($"{ServiceName} {operation}", e, timedOut: true);
        }
    }
}
