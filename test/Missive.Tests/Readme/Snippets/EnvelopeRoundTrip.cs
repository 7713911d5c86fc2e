// With Orders.cs of the README's quick start.
using System;
using System.Buffers;
using System.Collections.Generic;
using Microsoft.Extensions.DependencyInjection;
using Missive;
using Missive.Buffers;
using Missive.Serialization;

namespace Missive.Tests.Readme;

public static class EnvelopeRoundTrip
{
    // provider: the application's services, for example host.Services
    public static MessageEnvelope SerializeAndRead(IServiceProvider provider, OrderPlaced order)
    {
        IEnvelopeSerializer serializer = provider.GetRequiredService<IEnvelopeSerializer>();
        MessageEnvelope<OrderPlaced> envelope = provider.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(order);
        using var buffer = new PooledBufferWriter();
        serializer.Serialize(buffer, envelope);
        return serializer.Deserialize(new ReadOnlySequence<byte>(buffer.WrittenMemory));
    }

    public static IReadOnlyList<MessageEnvelope> SerializeAndReadBatch(IServiceProvider provider, IReadOnlyList<MessageEnvelope> envelopes)
    {
        IEnvelopeSerializer serializer = provider.GetRequiredService<IEnvelopeSerializer>();
        using var buffer = new PooledBufferWriter();
        serializer.SerializeBatch(buffer, envelopes); // application/cloudevents-batch+json: a JSON array
        return serializer.DeserializeBatch(new ReadOnlySequence<byte>(buffer.WrittenMemory));
    }
}
