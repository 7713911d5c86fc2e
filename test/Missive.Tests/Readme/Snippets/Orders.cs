using System;
using System.Text.Json.Serialization;
using System.Threading;
using System.Threading.Tasks;
using Missive;
using Missive.Bus;

namespace Missive.Tests.Readme;

public sealed record OrderPlaced(string OrderId, decimal Total);

[JsonSerializable(typeof(OrderPlaced))]
public sealed partial class AppJsonContext : JsonSerializerContext
{
}

public sealed class OrderPlacedHandler : IMessageHandler<OrderPlaced>
{
    public Task HandleAsync(MessageEnvelope<OrderPlaced> envelope, CancellationToken cancellationToken)
    {
        Console.WriteLine($"{envelope.Message.OrderId} via {envelope.SnsMetadata?.TopicArn}");
        return Task.CompletedTask;
    }
}
