using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using Missive.Aws;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

public sealed class AwsOptionsTests
{
    [Fact]
    public void Endpoints_DefaultToTheRegionsPartition()
    {
        AwsSettings eu = Resolve(new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials });
        AwsSettings china = Resolve(new AwsTransportOptions { Region = "cn-north-1", Credentials = AwsEmulator.Credentials });

        Assert.Equal("https://sqs.eu-west-1.amazonaws.com/", eu.SqsEndpoint.ToString());
        Assert.Equal("https://sns.eu-west-1.amazonaws.com/", eu.SnsEndpoint.ToString());
        Assert.Equal("https://events.eu-west-1.amazonaws.com/", eu.EventBridgeEndpoint.ToString());
        Assert.Equal("https://sqs.cn-north-1.amazonaws.com.cn/", china.SqsEndpoint.ToString());
    }

    [Fact]
    public void TheTransportsHttpClients_AreNotRotatedByTheFactory_TheirSocketsRenewTheirConnections()
    {
        // The transport holds one client per service for its life: a rotated handler would only wait for the factory's
        // cleanup timer, which runs on after the host is gone.
        var services = new ServiceCollection();
        services.AddMessageBus(bus => bus.UseAws(o =>
        {
            o.Region = "eu-west-1";
            o.Credentials = AwsEmulator.Credentials;
        }));
        using ServiceProvider provider = services.BuildServiceProvider();
        IOptionsMonitor<Microsoft.Extensions.Http.HttpClientFactoryOptions> factory = provider.GetRequiredService<IOptionsMonitor<Microsoft.Extensions.Http.HttpClientFactoryOptions>>();

        foreach (string service in new[] { "sqs", "sns", "events" })
        {
            Assert.Equal(System.Threading.Timeout.InfiniteTimeSpan, factory.Get(MessageBusBuilderAwsExtensions.HttpClientNamePrefix + service).HandlerLifetime);
        }
    }

    [Fact]
    public void Endpoints_FollowThePrecedenceOfOptionsAndEnvironment()
    {
        var environment = new Dictionary<string, string?>
        {
            ["AWS_ENDPOINT_URL"] = "http://localhost:4566",
            ["AWS_ENDPOINT_URL_SNS"] = "http://localhost:4575",
        };
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials, EventBridgeServiceUrl = new Uri("http://localhost:9000") };

        AwsSettings settings = Resolve(options, environment);

        Assert.Equal("http://localhost:4566/", settings.SqsEndpoint.ToString()); // global variable
        Assert.Equal("http://localhost:4575/", settings.SnsEndpoint.ToString()); // service variable beats the global one
        Assert.Equal("http://localhost:9000/", settings.EventBridgeEndpoint.ToString()); // options beat the environment

        environment["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"] = "true";
        Assert.Equal("https://sqs.eu-west-1.amazonaws.com/", Resolve(options, environment).SqsEndpoint.ToString());

        options.ServiceUrl = new Uri("http://127.0.0.1:1234");
        Assert.Equal("http://127.0.0.1:1234/", Resolve(options, environment).SnsEndpoint.ToString());
    }

    [Theory]
    [InlineData("Europe", "not an AWS region name")]
    [InlineData("eu-west-1", null)]
    public void Region_IsCheckedWithAMessageThatSaysWhatIsWrong(string region, string? problem)
    {
        var options = new AwsTransportOptions { Region = region, Credentials = AwsEmulator.Credentials };
        if (problem is null)
        {
            Assert.Equal(region, Resolve(options).Region.SystemName);
        }
        else
        {
            Assert.Contains(problem, Assert.Throws<MessageBusConfigurationException>(() => Resolve(options)).Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Binder_ReadsEveryKey_AndRefusesValuesThatDoNotParse()
    {
        IConfiguration section = Configuration(new()
        {
            ["Region"] = "eu-central-1",
            ["ServiceUrl"] = "http://localhost:4566",
            ["SqsServiceUrl"] = "http://localhost:1",
            ["Profile"] = "dev",
            ["MaxAttempts"] = "5",
            ["MaxBackoff"] = "00:00:03",
            ["AttemptTimeout"] = "00:01:00",
            ["VerifyMessageDigests"] = "false",
            ["QueueUrls:orders"] = "https://sqs.eu-central-1.amazonaws.com/123456789012/orders",
            ["TopicArns:events"] = "arn:aws:sns:eu-central-1:123456789012:events",
        });
        var options = new AwsTransportOptions();

        AwsTransportOptionsBinder.Bind(options, section);

        Assert.Equal("eu-central-1", options.Region);
        Assert.Equal(new Uri("http://localhost:4566"), options.ServiceUrl);
        Assert.Equal(new Uri("http://localhost:1"), options.SqsServiceUrl);
        Assert.Equal("dev", options.Profile);
        Assert.Equal(5, options.MaxAttempts);
        Assert.Equal(TimeSpan.FromSeconds(3), options.MaxBackoff);
        Assert.Equal(TimeSpan.FromMinutes(1), options.AttemptTimeout);
        Assert.False(options.VerifyMessageDigests);
        Assert.Equal("https://sqs.eu-central-1.amazonaws.com/123456789012/orders", options.QueueUrls["orders"].ToString());
        Assert.Equal("arn:aws:sns:eu-central-1:123456789012:events", options.TopicArns["events"]);

        var e = Assert.Throws<MessageBusConfigurationException>(() => AwsTransportOptionsBinder.Bind(new AwsTransportOptions(), Configuration(new() { ["MaxBackoff"] = "twenty seconds" })));
        Assert.Contains("'MaxBackoff' must be a time span", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("MaxAttempts", "0", "MaxAttempts is 0")]
    [InlineData("MaxBackoff", "00:00:00", "MaxBackoff is 00:00:00")]
    [InlineData("AttemptTimeout", "00:00:00.5", "AttemptTimeout is 00:00:00.5")]
    [InlineData("TopicArns:orders", "orders", "TopicArns:orders is not an SNS topic ARN")]
    [InlineData("Region", "Europe", "not an AWS region name")]
    [InlineData("Region", "eu-wset-1", "Region 'eu-wset-1' is not a region AWS lists (did you mean 'eu-west-1'?)")]
    [InlineData("TopicArns:orders", "arn:aws:sns:us-east-1:123456789012:orders", "TopicArns:orders (arn:aws:sns:us-east-1:123456789012:orders) is in us-east-1, but the transport's region is eu-west-1")]
    [InlineData("QueueUrls:orders", "https://sqs.us-east-2.amazonaws.com/123456789012/orders", "is in us-east-2, but the transport's region is eu-west-1")]
    [InlineData("VerifyResourcesAtStrtup", "true", "'Missive:Aws:VerifyResourcesAtStrtup' is not a setting, so it would be ignored; did you mean 'VerifyResourcesAtStartup'?")]
    [InlineData("Credentials", "secret", "credentials come from the AWS default chain")]
    [InlineData("MaxSnsMessageSize", "100", "MaxSnsMessageSize is 100")]
    public async Task HostStart_WithInvalidOptions_FailsWithTheFix(string key, string value, string message)
    {
        using IHost host = Host(new() { ["Missive:Aws:Region"] = "eu-west-1", [$"Missive:Aws:{key}"] = value });

        var e = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains(message, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ARegionNewerThanTheSdk_StartsWhenAllowed_AndAQueueOnALocalEndpointHasNoRegionToCompare()
    {
        using IHost host = Host(new()
        {
            ["Missive:Aws:Region"] = "xx-future-9",
            ["Missive:Aws:AllowUnlistedRegion"] = "true",
            ["Missive:Aws:ServiceUrl"] = "http://127.0.0.1:4566",
            ["Missive:Aws:QueueUrls:orders"] = "http://127.0.0.1:4566/000000000000/orders",
            ["Missive:Aws:TopicArns:orders"] = "arn:aws:sns:xx-future-9:000000000000:orders",
        });

        await host.StartAsync();

        Assert.Equal("xx-future-9", ((AwsTransport)host.Services.GetRequiredService<IMessageTransport>()).Region);
        await host.StopAsync();
    }

    [Fact]
    public async Task UseAws_RegistersTheTransport_WithEndpointsFromConfiguration()
    {
        using IHost host = Host(new() { ["Missive:Aws:Region"] = "eu-west-1", ["Missive:Aws:ServiceUrl"] = "http://127.0.0.1:4566" });
        await host.StartAsync();

        var transport = (AwsTransport)host.Services.GetRequiredService<IMessageTransport>();

        Assert.Equal("eu-west-1", transport.Region);
        Assert.Equal("http://127.0.0.1:4566/", transport.SqsEndpoint.ToString());
        await host.StopAsync();
    }

    [Theory]
    [InlineData("orders", "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo", "QueueUrls:orders is a FIFO queue")]
    [InlineData("orders.fifo", "https://sqs.eu-west-1.amazonaws.com/123456789012/orders", "QueueUrls:orders.fifo names a FIFO queue")]
    public void ATransportBuiltWithoutUseAws_RefusesAFifoQueueUnderAnotherName(string name, string url, string problem)
    {
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials };
        options.QueueUrls[name] = new Uri(url);

        var error = Assert.Throws<MessageBusConfigurationException>(() => new AwsTransport(options));

        Assert.Contains(problem, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void UseAws_AndTheInMemoryBroker_CannotBothBeTheTransport()
    {
        using ServiceProvider first = new ServiceCollection().AddMessageBus(bus => bus.UseInMemoryBroker().UseAws()).BuildServiceProvider();
        using ServiceProvider reverse = new ServiceCollection().AddMessageBus(bus => bus.UseAws(o => o.Region = "eu-west-1").UseInMemoryBroker()).BuildServiceProvider();

        var e = Assert.Throws<MessageBusConfigurationException>(() => first.GetRequiredService<Missive.Bus.IMessagePublisher>());
        var r = Assert.Throws<MessageBusConfigurationException>(() => reverse.GetRequiredService<Missive.Bus.IMessagePublisher>());

        Assert.Contains("Two transports are configured", e.Message, StringComparison.Ordinal);
        Assert.Contains("Two transports are configured", r.Message, StringComparison.Ordinal);
    }

    private static IHost Host(Dictionary<string, string?> settings)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(settings);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>("Orders.OrderPlaced")
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .UseAws(builder.Configuration.GetSection("Missive:Aws"), o => o.Credentials = AwsEmulator.Credentials));
        return builder.Build();
    }

    private static IConfiguration Configuration(Dictionary<string, string?> values) => new ConfigurationBuilder().AddInMemoryCollection(values).Build();

    private static AwsSettings Resolve(AwsTransportOptions options, Dictionary<string, string?>? environment = null)
        => AwsSettings.Resolve(options, name => environment?.GetValueOrDefault(name));
}
