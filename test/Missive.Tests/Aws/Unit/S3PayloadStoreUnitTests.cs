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

    // S3's rules for general purpose bucket names (the S3 user guide, "General purpose bucket naming rules").
    [Theory]
    [InlineData("missive-payloads", true)]
    [InlineData("abc", true)]
    [InlineData("docexamplebucket1", true)]
    [InlineData("my.example.bucket", true)]
    [InlineData("0-leading-digit", true)]
    [InlineData("ab", false)] // under 3 characters
    [InlineData("a123456789012345678901234567890123456789012345678901234567890123", false)] // 64 characters
    [InlineData("Missive-Payloads", false)] // uppercase
    [InlineData("my_bucket", false)] // underscore
    [InlineData("-leading-hyphen", false)]
    [InlineData("trailing-hyphen-", false)]
    [InlineData("two..dots", false)]
    [InlineData("192.168.5.4", false)] // an IP address
    [InlineData("xn--bucket", false)] // reserved prefixes and suffixes
    [InlineData("sthree-bucket", false)]
    [InlineData("bucket-s3alias", false)]
    [InlineData("bucket--ol-s3", false)]
    [InlineData("evil.example/x?", false)] // would leave the host name
    [InlineData("evil.example:443", false)]
    public void BucketNames_FollowS3sNamingRules(string bucket, bool valid)
        => Assert.Equal(valid, S3PayloadStore.IsValidBucketName(bucket));

    [Theory]
    [InlineData("evil.example/x?")]
    [InlineData("attacker.example#")]
    [InlineData("UPPER")]
    public async Task APointerToABucketS3WouldNotName_IsRefusedAsUnreadable_WithoutARequest(string bucket)
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.OK, "x") };
        using S3PayloadStore store = Store(handler);
        var location = new PayloadLocation(bucket, "0b1d6ef0-1d0e-4bd2-9d34-1a7dc8e5b3a4");

        var get = await Assert.ThrowsAsync<MessageTransportException>(() => store.GetAsync(location, 1024));
        var delete = await Assert.ThrowsAsync<MessageTransportException>(() => store.DeleteAsync(location));

        Assert.Equal("InvalidBucketName", get.ErrorCode);
        Assert.Equal("InvalidBucketName", delete.ErrorCode);
        Assert.True(get.IsPersistent);
        Assert.Empty(handler.Requests);
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

    [Fact]
    public async Task CredentialsTheClientCannotGet_AreAPersistentFailure_AsOnTheSqsClient()
    {
        var handler = new RecordingHandler();
        var config = new AmazonS3Config { ServiceURL = "http://own-s3.local:9000", ForcePathStyle = true, AuthenticationRegion = "eu-west-1", MaxErrorRetry = 0, HttpClientFactory = new SdkHttpClients(handler) };
        using var client = new AmazonS3Client(new NoCredentials(), config);
        using var store = new S3PayloadStore(new S3PayloadStoreOptions { Bucket = "missive-payloads" }, client);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => store.PutAsync("{}"u8.ToArray()));

        Assert.Equal("ClientConfiguration", error.ErrorCode);
        Assert.True(error.IsPersistent);
        Assert.False(error.IsTransient);
        Assert.Contains("credentials", error.Message, StringComparison.Ordinal);
        Assert.Empty(handler.Requests); // nothing was sent
    }

    /// <summary>Credentials whose source fails, as a missing profile or an expired SSO session does.</summary>
    private sealed class NoCredentials : Amazon.Runtime.AWSCredentials
    {
        public override Amazon.Runtime.ImmutableCredentials GetCredentials() => throw new Amazon.Runtime.AmazonClientException("Failed to resolve AWS credentials: the SSO session has expired.");

        public override Task<Amazon.Runtime.ImmutableCredentials> GetCredentialsAsync() => Task.FromResult(GetCredentials());
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
