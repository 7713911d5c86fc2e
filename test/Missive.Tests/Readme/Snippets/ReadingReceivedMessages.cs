using System;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Missive;
using Missive.Serialization;
using Missive.Transport;

namespace Missive.Tests.Readme;

public static class ReadingReceivedMessages
{
    // A consumer of its own (or a Lambda function without the processor): a raw, SNS or EventBridge body, one reader.
    public static MessageEnvelope? Read(IServiceProvider provider, SqsMessage received)
    {
        var reader = new InboundMessageReader(
            provider.GetRequiredService<IEnvelopeSerializerProvider>(),
            provider.GetRequiredService<IOptions<SerializationOptions>>().Value);
        InboundMessage inbound = reader.Read(received);
        return inbound.Envelope; // null for an SNS subscription confirmation
    }
}
