using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Amazon;
using Missive.Aws;

namespace Missive.Tests.Aws.Unit;

/// <summary>The bottom of the handler chain in unit tests: records every request as it would go on the wire, and answers from a script.</summary>
public sealed class RecordingHandler : HttpMessageHandler
{
    private readonly ConcurrentQueue<Func<RecordedRequest, HttpResponseMessage>> _script = new();

    public List<RecordedRequest> Requests { get; } = [];

    /// <summary>What every request gets once the script is used up.</summary>
    public Func<RecordedRequest, HttpResponseMessage> Default { get; set; } = _ => Json(HttpStatusCode.OK, "{}");

    public RecordingHandler Then(Func<RecordedRequest, HttpResponseMessage> answer)
    {
        _script.Enqueue(answer);
        return this;
    }

    public RecordingHandler Then(HttpStatusCode status, string body, params (string Name, string Value)[] headers)
        => Then(_ => Answer(status, body, headers));

    public static HttpResponseMessage Json(HttpStatusCode status, string body, params (string Name, string Value)[] headers)
        => Answer(status, body, headers);

    public static HttpResponseMessage Answer(HttpStatusCode status, string body, params (string Name, string Value)[] headers)
        => Answer(status, new StringContent(body, Encoding.UTF8), headers);

    public static HttpResponseMessage Answer(HttpStatusCode status, HttpContent content, params (string Name, string Value)[] headers)
    {
        var response = new HttpResponseMessage(status) { Content = content };
        foreach ((string name, string value) in headers)
        {
            response.Headers.TryAddWithoutValidation(name, value);
        }

        return response;
    }

    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        string body = request.Content is null ? string.Empty : await request.Content.ReadAsStringAsync(cancellationToken);
        var headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (KeyValuePair<string, IEnumerable<string>> header in request.Headers.Concat(request.Content?.Headers ?? Enumerable.Empty<KeyValuePair<string, IEnumerable<string>>>()))
        {
            headers[header.Key] = string.Join(",", header.Value);
        }

        var recorded = new RecordedRequest(request.Method.Method, request.RequestUri!, headers, body);
        lock (Requests)
        {
            Requests.Add(recorded);
        }

        return _script.TryDequeue(out Func<RecordedRequest, HttpResponseMessage>? answer) ? answer(recorded) : Default(recorded);
    }

    /// <summary>A transport whose three services sign with the test credentials (region eu-west-1) and end in <paramref name="handler"/>.</summary>
    public static AwsTransport Transport(RecordingHandler handler, Action<AwsTransportOptions>? configure = null, TimeProvider? timeProvider = null, Microsoft.Extensions.Logging.ILogger? logger = null, TimeProvider? signingClock = null)
    {
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials };
        configure?.Invoke(options);
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null, signingClock);
        return new AwsTransport(
            options,
            settings,
            service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, handler), disposeHandler: false) { Timeout = Timeout.InfiniteTimeSpan },
            timeProvider ?? TimeProvider.System,
            logger);
    }
}

public sealed record RecordedRequest(string Method, Uri Uri, Dictionary<string, string> Headers, string Body)
{
    public string? Target => Headers.GetValueOrDefault("X-Amz-Target");
}
