using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;

namespace Missive.Bus;

/// <summary>The last step of the handling pipeline for message type <typeparamref name="T"/>: its <see cref="IMessageHandler{T}"/>, resolved from the message's scope.</summary>
internal static class MessageHandlerStep<T>
{
    public static readonly HandleStep Instance = Invoke;

    private static Task Invoke(HandleContext context)
    {
        if (context.HandlerCalled)
        {
            throw new PipelineException($"The next step of the handling pipeline was called twice for message {context.Message.MessageId}: the handler runs once per delivery.");
        }

        context.HandlerCalled = true;
        IMessageHandler<T> handler = context.Services.GetRequiredService<IMessageHandler<T>>();
        return handler.HandleAsync((MessageEnvelope<T>)context.Envelope, context.CancellationToken)
            ?? throw new PipelineException($"The handler {handler.GetType().Name} returned null instead of a task.");
    }
}
