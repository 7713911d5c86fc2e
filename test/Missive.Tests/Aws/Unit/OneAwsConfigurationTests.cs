using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Threading.Tasks;
using Amazon;
using Amazon.SQS;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Aws.Protocol;
using Missive.Offload;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// One AWS configuration: the bus takes what the application's AWS options say, refuses at startup where they and the
/// Missive.Aws options disagree or where the application's IAmazonSQS signs for another region, and never falls back in
/// silence (a misspelt section, an in-process payload store on a real transport).
/// </summary>
public sealed class OneAwsConfigurationTests
{
    [Fact]
    public async Task TheMissiveOptionsAndTheApplicationsAwsSection_SayingTwoRegions_StopTheHost_NamingBoth()
    {
        using IHost host = Host(new() { ["AWS:Region"] = "us-east-1" }, bus => bus.UseAws(o => o.Region = "eu-west-1"));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains("disagree on the region", error.Message, StringComparison.Ordinal);
        Assert.Contains("'eu-west-1'", error.Message, StringComparison.Ordinal);
        Assert.Contains("'us-east-1'", error.Message, StringComparison.Ordinal);
        Assert.Contains("\"AWS\" configuration section", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Profile", "AWS:Profile", "other", "disagree on the credentials")]
    [InlineData("ServiceUrl", "AWS:ServiceURL", "http://127.0.0.1:9/", "disagree on the endpoint")]
    public async Task TheTwoConfigurationsSayingOtherwise_OnCredentialsOrTheEndpoint_StopTheHost(string missiveKey, string awsKey, string value, string problem)
    {
        using IHost host = Host(
            new() { ["AWS:Region"] = "eu-west-1", [awsKey] = value, [$"Missive:Aws:{missiveKey}"] = missiveKey == "Profile" ? "orders" : "http://127.0.0.1:8/" },
            (bus, configuration) => bus.UseAws(configuration.GetSection("Missive:Aws")));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains(problem, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheApplicationsSection_GivesTheRegionCredentialsAndEndpoint_WhereTheMissiveOptionsSayNothing()
    {
        var services = new ServiceCollection();
        services.AddSingleton<IConfiguration>(Configuration(new() { ["AWS:Region"] = "eu-central-1", ["AWS:ServiceURL"] = "http://127.0.0.1:4566/" }));
        using ServiceProvider provider = services.BuildServiceProvider();

        AwsSettings settings = AwsSettings.Resolve(new AwsTransportOptions { Credentials = AwsEmulator.Credentials }, static _ => null, application: ApplicationAws.From(provider));

        Assert.Equal("eu-central-1", settings.Region.SystemName);
        Assert.Equal("http://127.0.0.1:4566/", settings.SnsEndpoint.AbsoluteUri);
        Assert.Equal("http://127.0.0.1:4566/", settings.EventBridgeEndpoint.AbsoluteUri);
        Assert.Contains("\"AWS\" configuration section", settings.RegionSource, StringComparison.Ordinal);
        Assert.Contains("ServiceURL of the \"AWS\" configuration section", settings.SnsEndpointSource, StringComparison.Ordinal);
    }

    // The SDK's own choice, as its requests show it: a client made as AddAWSService makes it from the "AWS" section.
    [Theory]
    [InlineData("eu-west-1", null, null, "eu-west-1")] // a region alone
    [InlineData("eu-west-1", "http://127.0.0.1:4566", null, "us-east-1")] // a ServiceURL drops the region: the SDK signs for us-east-1
    [InlineData("eu-west-1", "http://127.0.0.1:4566", "eu-west-1", "eu-west-1")] // unless AuthenticationRegion says
    [InlineData(null, "https://sqs.eu-west-2.amazonaws.com", null, "eu-west-2")] // an AWS host names its region
    [InlineData("ap-southeast-2", null, "eu-west-3", "eu-west-3")]
    public async Task TheRegionReadOffAnSdkClient_IsTheOneItsRequestsAreSignedFor(string? region, string? serviceUrl, string? authenticationRegion, string signed)
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(HttpStatusCode.OK, "{\"QueueUrl\":\"http://127.0.0.1/000000000000/q\"}") };
        var config = new AmazonSQSConfig { MaxErrorRetry = 0, HttpClientFactory = new SdkHttpClients(handler) };
        if (region is not null)
        {
            config.RegionEndpoint = RegionEndpoint.GetBySystemName(region); // as the SDK's client factory sets them: region, then ServiceURL
        }

        if (serviceUrl is not null)
        {
            config.ServiceURL = serviceUrl;
        }

        if (authenticationRegion is not null)
        {
            config.AuthenticationRegion = authenticationRegion;
        }

        using var client = new AmazonSQSClient(AwsEmulator.Credentials, config);
        await client.GetQueueUrlAsync("q");

        string scope = handler.Requests.Single().Headers["Authorization"];
        Assert.Contains($"/{signed}/sqs/aws4_request", scope, StringComparison.Ordinal); // what the SDK did
        Assert.Equal(signed, SdkClientSite.Of(config, "sqs").Region); // what Missive reads off the client
    }

    [Fact]
    public async Task AnApplicationsSqsClientSigningForAnotherRegion_StopsTheHost_SayingWhichSettingToAdd()
    {
        // docs/aws.md's first snippet as it was: Region and ServiceURL in the application's AWS options, no AuthenticationRegion.
        var aws = new Amazon.Extensions.NETCore.Setup.AWSOptions { Region = RegionEndpoint.EUWest1, Credentials = AwsEmulator.Credentials };
        aws.DefaultClientConfig.ServiceURL = "http://127.0.0.1:4566";
        using IHost host = Host(
            [],
            (bus, configuration) => bus.UseAws(o => o.UseSdkSqsClient = true),
            services =>
            {
                services.AddDefaultAWSOptions(aws);
                services.AddAWSService<IAmazonSQS>();
            });

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.True(error.Message.Contains("signs for 'us-east-1'", StringComparison.Ordinal), error.Message);
        Assert.Contains("sign for 'eu-west-1'", error.Message, StringComparison.Ordinal);
        Assert.Contains("AuthenticationRegion", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Missive:Asw", "did you mean 'Missive:Aws'?")]
    [InlineData("Missive:Amazon", "missing or empty")]
    public async Task AMisspeltOrMissingSection_StopsTheHost_InsteadOfRunningOnWhateverAwsTheEnvironmentNames(string given, string problem)
    {
        using var region = new EnvironmentScope(("AWS_REGION", "eu-west-1"));
        using IHost host = Host(
            new() { ["Missive:Aws:Region"] = "eu-west-1" },
            (bus, configuration) => bus.UseAws(configuration.GetSection(given)));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains($"'{given}' given to UseAws is missing or empty", error.Message, StringComparison.Ordinal);
        Assert.Contains(problem, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Missive:Aws:Region:Name", "eu-west-1", "holds a section")]
    [InlineData("Missive:Aws:QueueUrls:orders:url", "http://127.0.0.1/q", "holds a section")]
    public async Task AKeyNestedWhereAValueBelongs_StopsTheHost(string key, string value, string problem)
    {
        using IHost host = Host(new() { [key] = value }, (bus, configuration) => bus.UseAws(configuration.GetSection("Missive:Aws")));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains(problem, error.Message, StringComparison.Ordinal);
        Assert.Contains(key.Split(':')[2], error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Missive:Aws:Region", "Region in the Missive.Aws options")]
    [InlineData("AWS:Region", "the \"AWS\" configuration section")]
    public async Task AMalformedRegionFromConfiguration_SaysWhereItCameFrom_AndWhatWasMeant(string key, string source)
    {
        using IHost host = Host(new() { [key] = "eu-west1", ["Missive:Aws:TopicArns:orders"] = "arn:aws:sns:eu-west-1:123456789012:orders" }, (bus, configuration) => bus.UseAws(configuration.GetSection("Missive:Aws")));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains($"'eu-west1' from {source}", error.Message, StringComparison.Ordinal);
        Assert.Contains("did you mean 'eu-west-1'?", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AKeyTypoInTheSection_IsReportedOnce_NotAgainByAnotherCheck()
    {
        using IHost host = Host(new() { ["Missive:Aws:Region"] = "eu-west-1", ["Missive:Aws:VerifyResourcesAtStrtup"] = "true" }, (bus, configuration) => bus.UseAws(configuration.GetSection("Missive:Aws")));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        string problem = Assert.Single(error.Problems);
        Assert.Contains("did you mean 'VerifyResourcesAtStartup'?", problem, StringComparison.Ordinal);
    }

    [Fact]
    public async Task APollerSectionWithAKeyTypo_StopsTheHost_WithTheNearestSetting()
    {
        using IHost host = Host(
            new() { ["Missive:Poller:WaitTme"] = "00:00:02", ["Missive:Poller:MaxConcurrency"] = "four" },
            (bus, configuration) => bus.UseInMemoryBroker(b => b.CreateQueue("orders")).AddHandler<Order, NoOpHandler>().AddQueuePoller("orders", configuration.GetSection("Missive:Poller")));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains(error.Problems, p => p.Contains("'Missive:Poller:WaitTme' is not a setting", StringComparison.Ordinal) && p.Contains("did you mean 'WaitTime'?", StringComparison.Ordinal));
        Assert.Contains(error.Problems, p => p.Contains("'Missive:Poller:MaxConcurrency' is 'four'", StringComparison.Ordinal));
    }

    [Fact]
    public void APollerSection_SetsEveryOptionItNames()
    {
        IConfiguration configuration = Configuration(new()
        {
            ["P:MaxConcurrency"] = "4", ["P:MaxMessagesPerReceive"] = "5", ["P:WaitTime"] = "00:00:03", ["P:VisibilityTimeout"] = "00:01:00",
            ["P:ReceiveErrorDelay"] = "00:00:02", ["P:MaxReceiveErrorDelay"] = "00:00:20", ["P:RetryDelay"] = "00:00:07", ["P:DeadLetterQueue"] = "dlq",
        });
        var options = new Missive.Bus.PollerOptions();
        var problems = new List<string>();

        Missive.Bus.PollerOptionsBinder.Bind(options, configuration.GetSection("P"), problems);

        Assert.Empty(problems);
        Assert.Equal((4, 5, TimeSpan.FromSeconds(3), TimeSpan.FromMinutes(1)), (options.MaxConcurrency, options.MaxMessagesPerReceive, options.WaitTime, options.VisibilityTimeout));
        Assert.Equal((TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(20), (TimeSpan?)TimeSpan.FromSeconds(7), "dlq"), (options.ReceiveErrorDelay, options.MaxReceiveErrorDelay, options.RetryDelay, options.DeadLetterQueue));
    }

    [Fact]
    public async Task TheInMemoryPayloadStore_OnATransportThatLeavesTheProcess_StopsTheHost_UnlessAllowed()
    {
        using IHost refused = Host(new() { ["AWS:Region"] = "eu-west-1" }, bus => bus.UseAws(o => o.Credentials = AwsEmulator.Credentials).UsePayloadOffload());
        using IHost allowed = Host(new() { ["AWS:Region"] = "eu-west-1" }, bus => bus.UseAws(o => o.Credentials = AwsEmulator.Credentials).UsePayloadOffload(o => o.AllowInProcessStore = true));
        using IHost inMemory = Host([], bus => bus.UseInMemoryBroker(b => b.CreateQueue("orders")).UsePayloadOffload());

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => refused.StartAsync());
        await allowed.StartAsync();
        await inMemory.StartAsync();
        await allowed.StopAsync();
        await inMemory.StopAsync();

        Assert.Contains("this process's memory", error.Message, StringComparison.Ordinal);
        Assert.Contains("UseS3PayloadStore", error.Message, StringComparison.Ordinal);
        Assert.Contains("AllowInProcessStore", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task APayloadTheInMemoryStoreNeverHeld_SaysItLivesInAnotherProcessesMemory()
    {
        var store = new InMemoryPayloadStore();

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => store.GetAsync(new PayloadLocation("missive-payloads", Guid.NewGuid().ToString("D")), 1024));

        Assert.Contains("another process's payload, or one stored before a restart", error.Message, StringComparison.Ordinal);
        Assert.False(((IPayloadStore)store).IsSharedAcrossProcesses);
    }

    private static IHost Host(Dictionary<string, string?> settings, Action<MessageBusBuilder> configure)
        => Host(settings, (bus, _) => configure(bus));

    private static IHost Host(Dictionary<string, string?> settings, Action<MessageBusBuilder, IConfiguration> configure, Action<IServiceCollection>? services = null)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(settings);
        builder.Logging.ClearProviders();
        services?.Invoke(builder.Services);
        IConfiguration configuration = builder.Configuration;
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Order>(TestSerializers.OrderType).ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default);
            configure(bus, configuration);
        });
        return builder.Build();
    }

    private static IConfiguration Configuration(Dictionary<string, string?> settings) => new ConfigurationBuilder().AddInMemoryCollection(settings).Build();

    public sealed class NoOpHandler : Missive.Bus.IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, System.Threading.CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
