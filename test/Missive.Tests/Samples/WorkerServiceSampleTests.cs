using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.InMemory;
using Missive.Samples.WorkerService;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Samples;

public sealed class WorkerServiceSampleTests
{
    [Fact]
    public async Task WorkerHost_RunsForABoundedTime_AndHandlesWhatItPublishes()
    {
        using IHost host = WorkerHost.Build(["--Worker:PublishInterval=00:00:00.020", "--Logging:LogLevel:Default=Warning"], contentRoot: Path.Combine(RepositoryPaths.Root, "samples", "WorkerService"));
        OrderStatistics statistics = host.Services.GetRequiredService<OrderStatistics>();

        await host.StartAsync();
        using (var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30)))
        {
            while (statistics.Handled < 10)
            {
                await Task.Delay(20, timeout.Token);
            }
        }

        await host.StopAsync();

        Assert.True(statistics.Handled >= 10);
        // The bus came from appsettings.json: the queue, its dead-letter queue and the options exist as configured.
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        Assert.Equal("orders-worker-dlq", broker.GetQueue("orders-worker").Options.DeadLetterQueue);
        Assert.Equal(262144, host.Services.GetRequiredService<Missive.Serialization.MessageTypeMap>().Options.MaxEnvelopeSize);
        Assert.IsType<Missive.Protobuf.ProtobufEnvelopeSerializer>(host.Services.GetRequiredService<Missive.Serialization.IEnvelopeSerializerProvider>().PublishSerializer);
    }
}
