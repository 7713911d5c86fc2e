using System;
using System.Linq;
using System.Threading.Tasks;
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
        // AddAWSService builds the client when it is first resolved, and its factory throws the SDK's AmazonClientException
        // when the client cannot be made (no region, a profile whose credentials cannot be found). Which one a real
        // registration hits depends on the machine (the tests beside this one set credentials in the environment), so
        // the registration here throws that exception itself.
        using IHost host = Build(services => services.AddSingleton<IAmazonSQS>(_ => throw new Amazon.Runtime.AmazonClientException("No RegionEndpoint or ServiceURL configured")));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.True(error.Problems.Any(p => p.Contains("the IAmazonSQS registered could not be created", StringComparison.Ordinal) && p.Contains("No RegionEndpoint or ServiceURL configured", StringComparison.Ordinal)), string.Join("\n", error.Problems));
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
