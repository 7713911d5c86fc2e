using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Bus;
using Missive.Offload;
using Missive.Tests.Aws.Unit;
using Missive.Tests.Infrastructure;
using Missive.Tests.Offload;

namespace Missive.Tests.Aws;

/// <summary>
/// The S3 payload store against s3rver (npm, written by others) behind a proxy that recomputes every request's SigV4
/// signature for s3 with the AWS SDK for JavaScript's signer and checks the payload hash (tools/local-aws/s3.mjs), and
/// the cases no emulator shows, injected by that proxy: a 403, a slow answer, a truncated download.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class S3PayloadStoreTests(S3PayloadStoreTests.S3Emulator s3, AwsEmulatorFixture aws) : IClassFixture<S3PayloadStoreTests.S3Emulator>
{
    private static readonly byte[] FiveMiB = RandomNumberGenerator.GetBytes(5 * 1024 * 1024);

    [EmulatorFact]
    public async Task AFiveMiBPayload_IsStoredReadAndDeleted_EveryRequestSignedAsTheJavaScriptSdkSignsIt()
    {
        using S3PayloadStore store = s3.Store();
        await s3.FaultsAsync("[]");
        int rejectedBefore = await s3.RejectedAsync();

        PayloadLocation location = await store.PutAsync(FiveMiB);
        ReadOnlyMemory<byte> read = await store.GetAsync(location, FiveMiB.Length);
        await store.DeleteAsync(location);
        var gone = await Assert.ThrowsAsync<MessageTransportException>(() => store.GetAsync(location, FiveMiB.Length));

        Assert.Equal("missive-payloads", location.Bucket);
        Assert.Matches("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", location.Key);
        Assert.True(read.Span.SequenceEqual(FiveMiB));
        Assert.Equal("NoSuchKey", gone.ErrorCode);
        Assert.Equal(TransportFailureKind.Refused, gone.FailureKind); // one message's payload is gone: never the store's health
        Assert.Equal(rejectedBefore, await s3.RejectedAsync()); // every signature recomputed by the JavaScript SDK's signer matched
    }

    [EmulatorFact]
    public async Task TheLocalS3_ChecksSignaturesOverTheQueryString_AsTheOfficialClientSignsThem_AndPrintsItsBucketAndKeys()
    {
        // The official S3 client's listing carries its parameters in the query string (list-type=2, prefix); AWS signs
        // the query too, so the local endpoint must recompute it with them or refuse every listing the CLI makes.
        using S3PayloadStore store = s3.Store();
        PayloadLocation location = await store.PutAsync("{}"u8.ToArray());
        var config = new Amazon.S3.AmazonS3Config { ServiceURL = s3.Endpoint.AbsoluteUri, ForcePathStyle = true, AuthenticationRegion = "eu-west-1", MaxErrorRetry = 0 };
        using var client = new Amazon.S3.AmazonS3Client(AwsEmulator.Credentials, config);
        int rejectedBefore = await s3.RejectedAsync();

        Amazon.S3.Model.ListObjectsV2Response listed = await client.ListObjectsV2Async(new Amazon.S3.Model.ListObjectsV2Request { BucketName = "missive-payloads", Prefix = location.Key[..8], MaxKeys = 5 });
        using var wrong = new Amazon.S3.AmazonS3Client(new Amazon.Runtime.BasicAWSCredentials(AwsEmulator.Credentials.GetCredentials().AccessKey, "not-the-secret"), config);
        var refused = await Assert.ThrowsAsync<Amazon.S3.AmazonS3Exception>(() => wrong.ListObjectsV2Async(new Amazon.S3.Model.ListObjectsV2Request { BucketName = "missive-payloads", Prefix = "x" }));
        await store.DeleteAsync(location);

        Assert.Contains(listed.S3Objects, o => o.Key == location.Key);
        Assert.Equal(rejectedBefore + 1, await s3.RejectedAsync()); // the listing passed, the wrongly signed one did not
        Assert.Equal("SignatureDoesNotMatch", refused.ErrorCode);
        Assert.Contains("with the bucket missive-payloads", s3.Printed, StringComparison.Ordinal);
        var keys = AwsEmulator.Credentials.GetCredentials();
        Assert.Contains($"AWS_ACCESS_KEY_ID={keys.AccessKey} AWS_SECRET_ACCESS_KEY={keys.SecretKey}", s3.Printed, StringComparison.Ordinal);
        Assert.Contains($"AWS_ENDPOINT_URL_S3={s3.Endpoint.AbsoluteUri.TrimEnd('/')}", s3.Printed, StringComparison.Ordinal);
    }

    [EmulatorFact]
    public async Task ARequestSignedWithTheWrongSecret_IsRefused_SoTheCheckAboveMeansSomething()
    {
        var transport = new AwsTransportOptions { Region = "eu-west-1", Credentials = new Amazon.Runtime.BasicAWSCredentials(AwsEmulator.Credentials.GetCredentials().AccessKey, "not-the-secret"), MaxAttempts = 1 };
        using var store = new S3PayloadStore(new S3PayloadStoreOptions { Bucket = "missive-payloads", ServiceUrl = s3.Endpoint }, transport);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => store.PutAsync("{}"u8.ToArray()));

        Assert.Equal("SignatureDoesNotMatch", error.ErrorCode);
        Assert.DoesNotContain("not-the-secret", error.Message, StringComparison.Ordinal);
    }

    [EmulatorFact]
    public async Task AFailingUpload_IsTriedAgain_AndOneRefused_FailsThePublish_WithNothingSent()
    {
        using S3PayloadStore store = s3.Store();
        var handled = new PayloadOffloadTests.Handled();
        using IHost host = PayloadOffloadTests.Build(store, handled, "sqs");
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        Missive.InMemory.InMemoryBroker broker = host.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>();
        string document = new('u', 2 * 1024 * 1024);

        await s3.FaultsAsync("[{\"kind\":\"status\",\"method\":\"PUT\",\"status\":503,\"code\":\"SlowDown\",\"count\":1}]");
        await publisher.PublishAsync(document); // the second attempt stores it
        await s3.FaultsAsync("[{\"kind\":\"status\",\"method\":\"PUT\",\"status\":403,\"code\":\"AccessDenied\",\"count\":1}]");
        var refused = await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync(document));

        Assert.Equal(1, broker.GetQueue("docs").Count); // the first only: a refused upload sends no pointer
        Assert.Equal("AccessDenied", refused.ErrorCode);
        Assert.Contains("s3:PutObject", refused.Message, StringComparison.Ordinal);
    }

    [EmulatorFact]
    public async Task APayloadOverTheReadersLimit_IsRefusedFromItsLength_BeforeItIsRead()
    {
        using S3PayloadStore store = s3.Store();
        PayloadLocation location = await store.PutAsync(FiveMiB);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => store.GetAsync(location, 1024));

        Assert.Equal("PayloadTooLarge", error.ErrorCode);
    }

    [EmulatorFact]
    public async Task A403_ATruncatedDownload_AndASlowAnswer_EachSayWhatHappened()
    {
        using S3PayloadStore store = s3.Store(o => o.AttemptTimeout = TimeSpan.FromMilliseconds(500));
        PayloadLocation location = await store.PutAsync(Encoding.UTF8.GetBytes("{\"payload\":1}"));

        await s3.FaultsAsync("[{\"kind\":\"status\",\"method\":\"GET\",\"status\":403,\"code\":\"AccessDenied\",\"count\":1}]");
        var denied = await Assert.ThrowsAsync<MessageTransportException>(() => store.GetAsync(location, 1024));
        await s3.FaultsAsync("[{\"kind\":\"truncate\",\"method\":\"GET\",\"count\":1}]");
        var truncated = await Assert.ThrowsAsync<MessageTransportException>(() => store.GetAsync(location, 1024));
        await s3.FaultsAsync("[{\"kind\":\"delay\",\"method\":\"GET\",\"delayMs\":2000,\"count\":1}]");
        ReadOnlyMemory<byte> afterASlowAttempt = await store.GetAsync(location, 1024); // the slow attempt abandoned, the next answered

        Assert.Equal("AccessDenied", denied.ErrorCode);
        Assert.True(denied.IsPersistent);
        Assert.Contains("s3:GetObject", denied.Message, StringComparison.Ordinal);
        Assert.Contains("IncompleteBody", truncated.ErrorCode ?? string.Empty, StringComparison.Ordinal);
        Assert.Equal("{\"payload\":1}", Encoding.UTF8.GetString(afterASlowAttempt.Span));
    }

    [EmulatorTheory]
    [InlineData("sqs")]
    [InlineData("sns-raw")]
    [InlineData("sns-wrapped")]
    public async Task AFiveMiBMessage_GoesThroughTheBus_WithTheS3Store(string route)
    {
        using S3PayloadStore store = s3.Store();
        var handled = new PayloadOffloadTests.Handled();
        using IHost host = PayloadOffloadTests.Build(store, handled, route);
        string document = new('s', 5 * 1024 * 1024);

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(document);
        await host.StartAsync();
        await BusTestHost.WaitUntil(() => handled.Messages.Count == 1);
        await host.StopAsync();

        Assert.Equal(document, handled.Messages.Single());
    }

    [EmulatorFact]
    public async Task AFiveMiBMessage_GoesThroughTheLambdaProcessor_WithTheS3Store()
    {
        using S3PayloadStore store = s3.Store();
        var handled = new PayloadOffloadTests.Handled();
        using IHost host = PayloadOffloadTests.Build(store, handled, "sqs");
        string document = new('l', 5 * 1024 * 1024);
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(document);
        Missive.Transport.SqsMessage queued = (await host.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>().ReceiveAsync("docs", 1, TimeSpan.Zero)).Single();
        var attributes = new System.Text.Json.Nodes.JsonObject();
        foreach ((string name, MessageAttributeValue value) in queued.MessageAttributes)
        {
            attributes[name] = new System.Text.Json.Nodes.JsonObject { ["stringValue"] = value.StringValue, ["dataType"] = value.DataType };
        }

        var record = new System.Text.Json.Nodes.JsonObject
        {
            ["messageId"] = queued.MessageId,
            ["receiptHandle"] = queued.ReceiptHandle,
            ["body"] = queued.Body, // the pointer, as Lambda hands it over
            ["attributes"] = new System.Text.Json.Nodes.JsonObject { ["ApproximateReceiveCount"] = "1" },
            ["messageAttributes"] = attributes,
            ["eventSource"] = "aws:sqs",
            ["eventSourceARN"] = "arn:aws:sqs:eu-west-1:123456789012:docs",
        };

        Missive.Lambda.SqsBatchResponse response = await host.Services.GetRequiredService<Missive.Lambda.SqsEventProcessor>().ProcessAsync(Encoding.UTF8.GetBytes(new System.Text.Json.Nodes.JsonObject { ["Records"] = new System.Text.Json.Nodes.JsonArray(record) }.ToJsonString()));

        Assert.Empty(response.BatchItemFailures);
        Assert.Equal(document, handled.Messages.Single());
    }

    [EmulatorTheory]
    [InlineData(false)]
    [InlineData(true)] // the application's own IAmazonS3 and IAmazonSQS, registered as AddAWSService<T>() registers them
    public async Task OnTheAwsTransport_UseS3PayloadStore_CarriesAFiveMiBMessageThroughSqs(bool applicationsClient)
    {
        string queue = AwsTransportSqsTests.NewName("offload");
        await aws.Emulator.CreateQueueAsync(queue);
        var handled = new PayloadOffloadTests.Handled();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(handled);
        if (applicationsClient)
        {
            builder.Services.AddSingleton<Amazon.S3.IAmazonS3>(new Amazon.S3.AmazonS3Client(AwsEmulator.Credentials, new Amazon.S3.AmazonS3Config { ServiceURL = s3.Endpoint.AbsoluteUri, ForcePathStyle = true, AuthenticationRegion = "eu-west-1" }));
            builder.Services.AddSingleton<Amazon.SQS.IAmazonSQS>(aws.Emulator.CreateSqsClient());
        }

        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<string>("test.document")
            .ConfigureSerialization(o => o.MaxEnvelopeSize = 8 * 1024 * 1024)
            .AddSqsPublisher<string>(queue)
            .AddHandler<string, PayloadOffloadTests.DocumentHandler>()
            .AddQueuePoller(queue, o => o.WaitTime = TimeSpan.FromSeconds(1))
            .UseAws(o =>
            {
                aws.Emulator.Apply(o);
                o.UseSdkSqsClient = applicationsClient;
            })
            .UsePayloadOffload()
            .UseS3PayloadStore(o =>
            {
                o.Bucket = "missive-payloads";
                o.ServiceUrl = applicationsClient ? null : s3.Endpoint;
            }));
        using IHost host = builder.Build();
        string document = new('a', 5 * 1024 * 1024);
        int rejectedBefore = await s3.RejectedAsync();

        await host.StartAsync();
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(document);
        await BusTestHost.WaitUntil(() => handled.Messages.Count == 1);
        await host.StopAsync();

        Assert.Equal(document, handled.Messages.Single());
        var store = Assert.IsType<S3PayloadStore>(host.Services.GetRequiredService<IPayloadStore>());
        Assert.Equal(applicationsClient, host.Services.GetRequiredService<AwsTransport>().UsesSdkSqsClient);
        Assert.Equal(s3.Endpoint.Authority, store.Endpoint!.Authority);
        Assert.Equal(rejectedBefore, await s3.RejectedAsync()); // both clients' signatures checked by the proxy
    }

    [Fact]
    public async Task OnAws_TheBucketIsInTheHostName_AndSseKmsHeadersAreSentAndSigned()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.OK, string.Empty) };
        var transport = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials };
        using var store = new S3PayloadStore(
            new S3PayloadStoreOptions { Bucket = "orders-payloads", KeyPrefix = "offload/", KmsKeyId = "alias/payloads" },
            transport,
            AwsSettings.Resolve(transport, static _ => null),
            static _ => null,
            handler);

        PayloadLocation location = await store.PutAsync("{}"u8.ToArray());

        RecordedRequest put = Assert.Single(handler.Requests);
        Assert.Equal($"https://orders-payloads.s3.eu-west-1.amazonaws.com/offload/{location.Key[8..]}", put.Uri.AbsoluteUri);
        Assert.StartsWith("offload/", location.Key, StringComparison.Ordinal);
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData("{}"u8)), put.Headers["x-amz-content-sha256"]);
        Assert.Equal("aws:kms", put.Headers["x-amz-server-side-encryption"]);
        Assert.Equal("alias/payloads", put.Headers["x-amz-server-side-encryption-aws-kms-key-id"]);
        string signed = System.Text.RegularExpressions.Regex.Match(put.Headers["Authorization"], "SignedHeaders=([^,]+),").Groups[1].Value;
        Assert.Superset(new HashSet<string> { "host", "x-amz-content-sha256", "x-amz-date", "x-amz-server-side-encryption", "x-amz-server-side-encryption-aws-kms-key-id" }, signed.Split(';').ToHashSet());
        Assert.False(put.Headers.ContainsKey("x-amz-trailer"), "the body goes whole and signed, with no trailing checksum");
        Assert.Contains("/eu-west-1/s3/aws4_request", put.Headers["Authorization"], StringComparison.Ordinal);
    }

    /// <summary>tools/local-aws/s3.mjs, started once for the class on a free port.</summary>
    public sealed class S3Emulator : IAsyncLifetime
    {
        private Process? _process;

        public Uri Endpoint { get; private set; } = null!;

        /// <summary>What s3.mjs printed, up to and including its <c>ready:</c> line.</summary>
        public string Printed { get; private set; } = string.Empty;

        public S3PayloadStore Store(Action<AwsTransportOptions>? configure = null)
        {
            var transport = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials, MaxAttempts = 2 };
            configure?.Invoke(transport);
            return new S3PayloadStore(new S3PayloadStoreOptions { Bucket = "missive-payloads", ServiceUrl = Endpoint }, transport);
        }

        public async Task FaultsAsync(string json)
        {
            using var client = new HttpClient();
            (await client.PostAsync(new Uri(Endpoint, "/__control/faults"), new StringContent(json))).EnsureSuccessStatusCode();
        }

        /// <summary>How many requests the proxy has refused for their signature so far.</summary>
        public async Task<int> RejectedAsync()
        {
            using var client = new HttpClient();
            using var stats = System.Text.Json.JsonDocument.Parse(await client.GetStringAsync(new Uri(Endpoint, "/__control/stats")));
            return stats.RootElement.GetProperty("rejected").GetInt32();
        }

        public async Task InitializeAsync()
        {
            if (AwsEmulator.ShouldSkip)
            {
                return;
            }

            if (AwsEmulator.Unavailable is { } problem)
            {
                throw new InvalidOperationException("The S3 emulator cannot run: " + problem);
            }

            var start = new ProcessStartInfo("node") { WorkingDirectory = AwsEmulator.Directory, RedirectStandardInput = true, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            foreach (string argument in new[] { "s3.mjs", "--port", "0" })
            {
                start.ArgumentList.Add(argument);
            }

            _process = Process.Start(start) ?? throw new InvalidOperationException("node did not start.");
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            while (true)
            {
                string line = await _process.StandardOutput.ReadLineAsync(timeout.Token) ?? throw new InvalidOperationException("s3.mjs ended: " + await _process.StandardError.ReadToEndAsync());
                Printed += line + "\n";
                if (line.StartsWith("ready: ", StringComparison.Ordinal))
                {
                    Endpoint = new Uri(line["ready: ".Length..]);
                    return;
                }
            }
        }

        public async Task DisposeAsync()
        {
            if (_process is not null)
            {
                _process.StandardInput.Close(); // it ends when its input closes
                if (!_process.WaitForExit(5000))
                {
                    _process.Kill(entireProcessTree: true);
                }

                _process.Dispose();
            }

            await Task.CompletedTask;
        }
    }
}
