using System;
using System.Globalization;
using System.Linq;
using System.Net;
using System.Threading.Tasks;
using Amazon.SQS;
using Missive.Aws;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// A service whose clock is 20 minutes ahead of this host's, scripted as AWS documents the refusal (403,
/// <c>InvalidSignatureException</c>, "Signature expired", the service's time in its <c>Date</c> header): a request signed
/// more than 15 minutes off the service's clock is refused. Both SQS clients must take the service's time from the refusal,
/// sign again and go through, and sign every later request with the corrected time at once. Each client talks to an
/// endpoint of its own, so the AWS SDK's correction (kept per endpoint, process-wide) touches no other test.
/// </summary>
public sealed class ClockSkewOnBothClientsTests
{
    private static readonly TimeSpan ServiceAhead = TimeSpan.FromMinutes(20);

    [Theory]
    [InlineData("BuiltIn")]
    [InlineData("Sdk")]
    public async Task AServiceClockTwentyMinutesAhead_IsCorrectedOnTheFirstRefusal_AndLaterCallsGoThroughFirstTime(string client)
    {
        var handler = new RecordingHandler { Default = ServiceWithItsClockAhead };
        using AwsTransport transport = Create(client, handler);

        await transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "first" });
        await transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "second" });

        Assert.Equal(3, handler.Requests.Count); // refused once, then each send once
        Assert.False(WithinFifteenMinutesOfService(handler.Requests[0]));
        Assert.All(handler.Requests.Skip(1), r => Assert.True(WithinFifteenMinutesOfService(r), $"signed at {r.Headers["X-Amz-Date"]}"));
    }

    private static AwsTransport Create(string client, RecordingHandler handler)
    {
        string endpoint = $"https://skew-{client.ToLowerInvariant()}-{Guid.NewGuid():N}.sqs.test";
        void Configure(AwsTransportOptions options)
        {
            options.ServiceUrl = new Uri(endpoint);
            options.QueueUrls["orders"] = new Uri(endpoint + "/123456789012/orders");
        }

        if (client == "BuiltIn")
        {
            return RecordingHandler.Transport(handler, Configure);
        }

        var sdk = new AmazonSQSClient(AwsEmulator.Credentials, new AmazonSQSConfig { ServiceURL = endpoint, AuthenticationRegion = "eu-west-1", MaxErrorRetry = 2, HttpClientFactory = new SdkHttpClients(handler) });
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials, SqsClient = sdk };
        Configure(options);
        return new AwsTransport(options);
    }

    private static DateTimeOffset ServiceNow => DateTimeOffset.UtcNow + ServiceAhead;

    private static bool WithinFifteenMinutesOfService(RecordedRequest request)
    {
        var signed = DateTimeOffset.ParseExact(request.Headers["X-Amz-Date"], "yyyyMMdd'T'HHmmss'Z'", CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal);
        return (signed - ServiceNow).Duration() <= TimeSpan.FromMinutes(15);
    }

    private static System.Net.Http.HttpResponseMessage ServiceWithItsClockAhead(RecordedRequest request)
    {
        string date = ServiceNow.ToString("r", CultureInfo.InvariantCulture);
        if (!WithinFifteenMinutesOfService(request))
        {
            return RecordingHandler.Json(HttpStatusCode.Forbidden,
                "{\"__type\":\"com.amazon.coral.service#InvalidSignatureException\",\"message\":\"Signature expired: "
                + request.Headers["X-Amz-Date"] + " is now earlier than the service's time - 15 min.\"}",
                ("x-amzn-RequestId", "skew"), ("Date", date));
        }

        return RecordingHandler.Json(HttpStatusCode.OK, "{\"MessageId\":\"m-1\",\"MD5OfMessageBody\":\"" + Md5(request.Body) + "\"}", ("x-amzn-RequestId", "ok"), ("Date", date));
    }

    /// <summary>The MD5 of the MessageBody a SendMessage request carries, as SQS answers it.</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Security", "CA5351", Justification = "SQS defines its body digest as MD5.")]
    private static string Md5(string requestBody)
    {
        using var json = System.Text.Json.JsonDocument.Parse(requestBody);
        string body = json.RootElement.GetProperty("MessageBody").GetString()!;
        return Convert.ToHexStringLower(System.Security.Cryptography.MD5.HashData(System.Text.Encoding.UTF8.GetBytes(body)));
    }
}
