using System;
using System.Linq;
using System.Threading.Tasks;
using Amazon.Extensions.NETCore.Setup;
using Amazon.SQS;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;

namespace Missive.Tests.Aws.Unit;

/// <summary>A host asked to use the application's IAmazonSQS fails to start, saying what to do, when there is none or it cannot be made.</summary>
public sealed class SdkSqsClientStartupTests
{
    [Fact]
    public async Task UseSdkSqsClient_WithoutAnIAmazonSqs_StopsTheHost_NamingWhatToRegister()
    {
        using IHost host = Build(_ => { });

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains(error.Problems, p => p.Contains("no IAmazonSQS is registered", StringComparison.Ordinal) && p.Contains("AddAWSService<IAmazonSQS>()", StringComparison.Ordinal));
    }

    [Fact]
    public async Task UseSdkSqsClient_WithAnIAmazonSqsThatCannotBeMade_StopsTheHost_WithTheSdksReason()
    {
        // AddAWSService builds the client when it is first resolved: with a profile that does not exist, the SDK looks
        // through its credential chain and fails there, and its reason is what the problem shows.
        using IHost host = Build(services =>
        {
            services.AddDefaultAWSOptions(new AWSOptions { Profile = "missive-no-such-profile", Region = Amazon.RegionEndpoint.EUWest1 });
            services.AddAWSService<IAmazonSQS>();
        });

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.True(error.Problems.Any(p => p.Contains("the IAmazonSQS registered could not be created", StringComparison.Ordinal) && p.Contains("Failed to resolve AWS credentials", StringComparison.Ordinal)), string.Join("\n", error.Problems));
    }

    private static IHost Build(Action<IServiceCollection> services)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        services(builder.Services);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Missive.Tests.Infrastructure.Order>(Missive.Tests.Infrastructure.TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = Missive.Tests.Infrastructure.TestJsonContext.Default)
            .AddSqsPublisher<Missive.Tests.Infrastructure.Order>("orders")
            .UseAws(o =>
            {
                o.Region = "eu-west-1";
                o.Credentials = AwsEmulator.Credentials;
                o.UseSdkSqsClient = true;
            }));
        return builder.Build();
    }
}
