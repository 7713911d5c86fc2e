using System.Collections.Generic;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging.Abstractions;
using Missive.InMemory;
using Missive.Offload;
using Missive.Transport;

namespace Missive.Tests.Offload;

/// <summary>Pointers sent on as they are (dead-letter moves) are remembered only when a delete could need it.</summary>
public sealed class SentOnTrackingTests
{
    [Theory]
    [InlineData(false, 0)] // nothing deletes payloads: nothing to remember, however many pass
    [InlineData(true, 1)] // the payload must outlive the message it came in
    public async Task APointerSentOn_IsRememberedOnlyWithDeleteAfterHandling(bool deleteAfterHandling, int remembered)
    {
        var broker = new InMemoryBroker();
        broker.CreateQueue("docs-dlq");
        var transport = new PayloadOffloadingTransport(broker, new InMemoryPayloadStore(), new PayloadOffloadOptions { DeleteAfterHandling = deleteAfterHandling }, NullLogger.Instance);
        string pointer = PayloadPointer.Write(new PayloadLocation("missive-payloads", "0b1d6ef0-1d0e-4bd2-9d34-1a7dc8e5b3a4"), PayloadPointer.ClassName);

        for (int i = 0; i < 3; i++)
        {
            await transport.SendAsync(new SqsSendRequest { QueueName = "docs-dlq", Body = pointer, MessageAttributes = new Dictionary<string, MessageAttributeValue> { [PayloadPointer.SizeAttribute] = MessageAttributeValue.FromNumber("5242880") } });
        }

        Assert.Equal(3, broker.GetQueue("docs-dlq").Count);
        Assert.Equal(remembered, transport.SentOnCount);
    }
}
