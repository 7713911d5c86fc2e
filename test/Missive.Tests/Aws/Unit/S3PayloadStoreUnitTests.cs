using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Threading;
using System.Threading.Tasks;
using Amazon.S3;
using Microsoft.Extensions.Logging.Abstractions;
using Missive.Aws;
using Missive.Offload;
using Missive.Transport;

using Missive.Tests.Infrastructure;

namespace Missive.Tests.Aws.Unit;

/// <summary>The S3 store's checks before any request, its endpoint order, and an application's own client.</summary>
public sealed class S3PayloadStoreUnitTests
{
    private static readonly AwsTransportOptions Transport = new() { Region = "eu-west-1", Credentials = AwsEmulator.Credentials };

    // What is unsafe in a request's host or path is refused; S3's own naming rules are S3's to apply (its user guide:
    // general purpose, legacy, directory buckets; access point and Multi-Region Access Point aliases and ARNs).
    [Theory]
    [InlineData("missive-payloads", true)]
    [InlineData("abc", true)]
    [InlineData("my.example.bucket", true)]
    [InlineData("0-leading-digit", true)]
    [InlineData("my-access-point-hrzrlukc5m36ft7okagglf3gmwluquse1b-s3alias", true)] // an access point alias
    [InlineData("payloads--usw2-az1--x-s3", true)] // a directory bucket
    [InlineData("mfzwi23gnjvgw.mrap", true)] // a Multi-Region Access Point alias
    [InlineData("Legacy_Bucket.Name", true)] // a legacy (us-east-1) name
    [InlineData("amzn-s3-demo-bucket", true)]
    [InlineData("arn:aws:s3:us-west-2:123456789012:accesspoint/reports", true)]
    [InlineData("arn:aws:s3::123456789012:accesspoint/mfzwi23gnjvgw.mrap", true)]
    [InlineData("arn:aws:s3-outposts:us-west-2:123456789012:outpost/op-01ac5d28a6a232904/accesspoint/reports", true)]
    [InlineData("arn:aws:s3:::payloads", false)] // a bucket's own ARN: its name is what S3 takes
    [InlineData("arn:aws:s3:us-west-2:123456789012:accesspoint/../x", false)]
    [InlineData("", false)]
    [InlineData(".leading-dot", false)]
    [InlineData("two..dots", false)]
    [InlineData("evil.example/x?", false)] // would leave the host name
    [InlineData("evil.example:443", false)]
    [InlineData("attacker.example#", false)]
    [InlineData("space bucket", false)]
    [InlineData("caf\u00e9", false)]
    public void BucketNames_AreRefusedOnlyForWhatIsUnsafeInARequest(string bucket, bool valid)
        => Assert.Equal(valid, S3PayloadStore.IsValidBucketName(System.Text.RegularExpressions.Regex.Unescape(bucket)));

    [Theory]
    [InlineData("evil.example/x?")]
    [InlineData("attacker.example#")]
    [InlineData("user@evil.example")]
    public async Task APointerToABucketThatCannotBeRequested_IsRefusedAsUnreadable_WithoutARequest_NeverChangingHealth(string bucket)
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.OK, "x") };
        using S3PayloadStore store = Store(handler);
        var location = new PayloadLocation(bucket, "0b1d6ef0-1d0e-4bd2-9d34-1a7dc8e5b3a4");

        var get = await Assert.ThrowsAsync<MessageTransportException>(() => store.GetAsync(location, 1024));
        var delete = await Assert.ThrowsAsync<MessageTransportException>(() => store.DeleteAsync(location));

        Assert.Equal("InvalidBucketName", get.ErrorCode);
        Assert.Equal("InvalidBucketName", delete.ErrorCode);
        Assert.Equal(TransportFailureKind.Refused, get.FailureKind); // one message's content
        Assert.Empty(handler.Requests);
    }

    [Theory]
    [InlineData("my-access-point-hrzrlukc5m36ft7okagglf3gmwluquse1b-s3alias")]
    [InlineData("Legacy_Bucket")]
    public async Task APointerFromAnExtendedClientToAnAccessPointOrLegacyBucket_IsFetched(string bucket)
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.OK, "{}") };
        using S3PayloadStore store = Store(handler);
        var location = new PayloadLocation(bucket, "0b1d6ef0-1d0e-4bd2-9d34-1a7dc8e5b3a4");

        ReadOnlyMemory<byte> payload = await store.GetAsync(location, 1024);

        Assert.Equal("{}", System.Text.Encoding.UTF8.GetString(payload.Span));
        Assert.Contains(bucket, Assert.Single(handler.Requests).Uri.AbsoluteUri, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task ADottedBucketOnAws_GoesInThePath_WhereATlsCertificateCoversTheHost()
    {
        // *.s3.eu-west-1.amazonaws.com does not cover a.b.s3.eu-west-1.amazonaws.com: with dots the bucket leaves the host.
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.OK, string.Empty) };
        using var store = new S3PayloadStore(new S3PayloadStoreOptions { Bucket = "orders.payloads.example" }, Transport, AwsSettings.Resolve(Transport, static _ => null), static _ => null, handler);

        PayloadLocation location = await store.PutAsync("{}"u8.ToArray());

        Assert.Equal($"https://s3.eu-west-1.amazonaws.com/orders.payloads.example/{location.Key}", Assert.Single(handler.Requests).Uri.AbsoluteUri);
    }

    [Fact]
    public void AStoreBucketThatIsNoBucketName_IsAConfigurationError()
    {
        var error = Assert.Throws<MessageBusConfigurationException>(() => new S3PayloadStore(new S3PayloadStoreOptions { Bucket = "arn:aws:s3:::payloads" }, Transport));

        Assert.Contains("not an S3 bucket name", error.Message, StringComparison.Ordinal);
    }

    // Most specific first: the store's ServiceUrl, AWS_ENDPOINT_URL_S3, the transport's ServiceUrl, AWS_ENDPOINT_URL, the region.
    [Theory]
    [InlineData(true, true, true, true, "http://store.local:1/")]
    [InlineData(false, true, true, true, "http://s3-variable.local:2/")]
    [InlineData(false, false, true, true, "http://transport.local:3/")]
    [InlineData(false, false, false, true, "http://global-variable.local:4/")]
    [InlineData(false, false, false, false, "https://s3.eu-west-1.amazonaws.com/")]
    public void TheEndpoint_IsTheMostSpecificOneConfigured(bool store, bool s3Variable, bool transport, bool globalVariable, string expected)
    {
        var options = new S3PayloadStoreOptions { Bucket = "missive-payloads", ServiceUrl = store ? new Uri("http://store.local:1") : null };
        var transportOptions = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials, ServiceUrl = transport ? new Uri("http://transport.local:3") : null };
        var environment = new Dictionary<string, string>();
        if (s3Variable)
        {
            environment["AWS_ENDPOINT_URL_S3"] = "http://s3-variable.local:2";
        }

        if (globalVariable)
        {
            environment["AWS_ENDPOINT_URL"] = "http://global-variable.local:4";
        }

        using var s3 = new S3PayloadStore(options, transportOptions, AwsSettings.Resolve(transportOptions, static _ => null), name => environment.GetValueOrDefault(name), handler: null);

        Assert.Equal(expected, s3.Endpoint!.AbsoluteUri);
        Assert.Contains(new Uri(expected).Authority, s3.Description, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheApplicationsOwnClient_IsUsed_AndNotDisposedWithTheStore()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.OK, string.Empty) };
        var config = new AmazonS3Config { ServiceURL = "http://own-s3.local:9000", ForcePathStyle = true, AuthenticationRegion = "eu-central-1", HttpClientFactory = new SdkHttpClients(handler) };
        using var client = new AmazonS3Client(AwsEmulator.Credentials, config);

        PayloadLocation location;
        using (var store = new S3PayloadStore(new S3PayloadStoreOptions { Bucket = "missive-payloads" }, client))
        {
            location = await store.PutAsync("{}"u8.ToArray());
        }

        await client.DeleteObjectAsync("missive-payloads", location.Key); // still usable: the store did not dispose it
        Assert.Equal(2, handler.Requests.Count);
        Assert.Equal($"http://own-s3.local:9000/missive-payloads/{location.Key}", handler.Requests[0].Uri.AbsoluteUri);
        Assert.Contains("/eu-central-1/s3/aws4_request", handler.Requests[0].Headers["Authorization"], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task CredentialsWhoseRefreshFails_AreATransientFailure_AsOnTheSqsClient(bool imds)
    {
        var handler = new RecordingHandler();
        var config = new AmazonS3Config { ServiceURL = "http://own-s3.local:9000", ForcePathStyle = true, AuthenticationRegion = "eu-west-1", MaxErrorRetry = 0, HttpClientFactory = new SdkHttpClients(handler) };
        using var client = new AmazonS3Client(new SdkSqsClientTests.FailingCredentials(imds), config);
        using var store = new S3PayloadStore(new S3PayloadStoreOptions { Bucket = "missive-payloads" }, client);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => store.PutAsync("{}"u8.ToArray()));

        Assert.Equal("CredentialsUnavailable", error.ErrorCode);
        Assert.Equal(TransportFailureKind.Transient, error.FailureKind);
        Assert.Contains("credentials could not be had", error.Message, StringComparison.Ordinal);
        Assert.Empty(handler.Requests); // nothing was sent
    }

    [Fact]
    public void EndpointSettingsGivenWithAClient_AreAConfigurationError()
    {
        using var client = new AmazonS3Client(AwsEmulator.Credentials, new AmazonS3Config { RegionEndpoint = Amazon.RegionEndpoint.EUWest1 });

        var error = Assert.Throws<MessageBusConfigurationException>(() => new S3PayloadStore(new S3PayloadStoreOptions { Bucket = "missive-payloads", ServiceUrl = new Uri("http://localhost:9000") }, client));

        Assert.Contains("AmazonS3Config", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task APointerToABucketOutsideTheAllowList_IsNotDeleted_WhenItsMessageIs()
    {
        // The receipt handle carries the pointer's location as AWS's extended clients mark it; the bucket is neither the
        // store's nor a readable one, so deleting the message must not delete in that bucket.
        var store = new RecordingStore("missive-payloads");
        var inner = new DeletingTransport();
        var options = new PayloadOffloadOptions { DeleteAfterHandling = true };
        options.ReadableBuckets.Add("partner-payloads");
        var transport = new PayloadOffloadingTransport(inner, store, options, NullLogger.Instance);

        await transport.DeleteAsync("docs", Marked("victim-bucket", "k1", "r1"));
        await transport.DeleteAsync("docs", Marked("partner-payloads", "k2", "r2"));
        await transport.DeleteAsync("docs", Marked("missive-payloads", "k3", "r3"));

        await BusTestHost.WaitUntil(() => transport.PayloadDeletesUnderWay == 0); // payload deletes follow their messages'

        Assert.Equal(["r1", "r2", "r3"], inner.Deleted); // every message deleted
        Assert.Equal(["s3://missive-payloads/k3", "s3://partner-payloads/k2"], store.Deleted.Order(StringComparer.Ordinal)); // only allowed buckets' payloads
    }

    private static string Marked(string bucket, string key, string handle) => "-..s3BucketName..-" + bucket + "-..s3BucketName..-" + "-..s3Key..-" + key + "-..s3Key..-" + handle;

    private static S3PayloadStore Store(RecordingHandler handler)
        => new(new S3PayloadStoreOptions { Bucket = "missive-payloads" }, Transport, AwsSettings.Resolve(Transport, static _ => null), static _ => null, handler);


    private sealed class RecordingStore(string bucket) : IPayloadStore
    {
        public List<string> Deleted { get; } = [];

        public string Bucket => bucket;

        public Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default)
        {
            lock (Deleted)
            {
                Deleted.Add(location.ToString());
            }
            return Task.CompletedTask;
        }
    }

    private sealed class DeletingTransport : IMessageTransport
    {
        public List<string> Deleted { get; } = [];

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default)
        {
            Deleted.Add(receiptHandle);
            return Task.FromResult(true);
        }

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException();
    }
}
