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
        builder.Services.AddDefaultAWSOptions(builder.Configuration.GetAWSOptions()); // the "AWS" section: region, profile, ServiceURL
        builder.Services.AddAWSService<IAmazonSQS>();
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>("Orders.OrderPlaced")
            .AddSqsPublisher<OrderPlaced>("orders")
            .UseAws(o =>
            {
                o.Region = "eu-west-1";
                o.UseSdkSqsClient = true; // or "Missive:Aws:UseSdkSqsClient": true in configuration
            }));
    }
}
