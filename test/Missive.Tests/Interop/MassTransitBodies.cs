using System;
using MassTransit;
using MassTransit.Context;
using MassTransit.Serialization;

namespace Missive.Tests.Interop;

/// <summary>What MassTransit 8.5.12's own serializer writes for a message: the bytes its SQS transport puts in a body.</summary>
internal static class MassTransitBodies
{
    public static byte[] Serialize<T>(T message, Action<SendContext<T>>? configure = null)
        where T : class
    {
        var context = new MessageSendContext<T>(message);
        configure?.Invoke(context);
        var serializer = new SystemTextJsonMessageSerializer();
        return serializer.GetMessageBody(context).GetBytes();
    }

    /// <summary>What MassTransit's raw JSON serializer writes: the message alone.</summary>
    public static byte[] SerializeRaw<T>(T message)
        where T : class
        => new SystemTextJsonRawMessageSerializer().GetMessageBody(new MessageSendContext<T>(message)).GetBytes();
}
