using System;
using System.Linq;
using System.Net;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// Logs a new user reads: the transport's HTTP clients say nothing below Warning unless the application asks for their
/// category, and no line names a byte position that is not one.
/// </summary>
public sealed class QuietLogsTests
{
    [Theory]
    [InlineData(null, false)]
    [InlineData("System.Net.Http.HttpClient.Missive.Aws", true)]
    [InlineData("System.Net.Http.HttpClient.Missive.Aws.sqs", true)]
    public async Task TheTransportsHttpClients_AreQuietAtInformation_UnlessTheirCategoryIsTurnedOn(string? category, bool expected)
    {
        var log = new CapturingLoggerProvider();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Logging.AddProvider(log);
        if (category is not null)
        {
            builder.Configuration["Logging:LogLevel:" + category] = "Information";
        }

        builder.Services.AddMessageBus(bus => bus.UseAws(o =>
        {
            o.Region = "eu-west-1";
            o.Credentials = AwsEmulator.Credentials;
        }));
        var answers = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.OK, "{\"QueueUrl\":\"https://sqs.eu-west-1.amazonaws.com/1/q\"}") };
        builder.Services.AddHttpClient(MessageBusBuilderAwsExtensions.HttpClientNamePrefix + "sqs").ConfigurePrimaryHttpMessageHandler(() => answers);
        using IHost host = builder.Build();

        await host.Services.GetRequiredService<AwsTransport>().GetQueueUrlAsync("q");

        Assert.Single(answers.Requests);
        Assert.Equal(expected, log.Messages.Any(m => m.Contains("HTTP request POST", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task AnUnreadableMessageWithoutAPosition_IsLoggedWithoutOne()
    {
        var log = new CapturingLoggerProvider();
        using IHost host = BusTestHost.Build(
            b => b.CreateQueue("q"),
            bus => bus.AddHandler<Order, NoOpHandler>().AddQueuePoller("q", o => o.WaitTime = TimeSpan.FromMilliseconds(50)),
            logger: log);
        Missive.InMemory.InMemoryBroker broker = host.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>();
        await broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = "%%% neither JSON nor base64 %%%" });

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => log.Messages.Any(m => m.Contains("could not be read", StringComparison.Ordinal)));
        await host.StopAsync();

        string line = log.Messages.First(m => m.Contains("could not be read", StringComparison.Ordinal));
        Assert.Contains("could not be read: Malformed: ", line, StringComparison.Ordinal); // with what is wrong
        Assert.DoesNotContain("byte -1", string.Join("\n", log.Messages), StringComparison.Ordinal);
        Assert.DoesNotContain(" | Missive.InvalidEnvelopeException", line, StringComparison.Ordinal); // no stack trace at every receive
    }

    private sealed class NoOpHandler : Missive.Bus.IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, System.Threading.CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
