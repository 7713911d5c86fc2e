// With Orders.cs of the README's quick start.
using Amazon.SQS;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive;

namespace Missive.Tests.Readme;

/// <summary>docs/aws.md's snippet: SQS through the application's own IAmazonSQS.</summary>
public static class SdkSqsClientWiring
{
    public static void AddOrdersBusOnTheSdkClient(this HostApplicationBuilder builder)
    {
        // The "AWS" section: Region, Profile, and for a local endpoint ServiceURL with AuthenticationRegion. The bus's
        // SNS, EventBridge and S3 calls take the same settings.
        builder.Services.AddDefaultAWSOptions(builder.Configuration.GetAWSOptions());
        builder.Services.AddAWSService<IAmazonSQS>();
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>("Orders.OrderPlaced")
            .AddSqsPublisher<OrderPlaced>("orders")
            .UseAws(o => o.UseSdkSqsClient = true)); // or "Missive:Aws:UseSdkSqsClient": true in configuration
    }
}
