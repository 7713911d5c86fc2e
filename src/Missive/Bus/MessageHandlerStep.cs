using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;

namespace Missive.Bus;

/// <summary>The last step of the handling pipeline for message type <typeparamref name="T"/>: its <see cref="IMessageHandler{T}"/>, resolved from the message's scope.</summary>
internal static class MessageHandlerStep<T>
{
    public static readonly HandleStep Instance = Invoke;

    private static Task Invoke(HandleContext context)
        => context.Services.GetRequiredService<IMessageHandler<T>>().HandleAsync((MessageEnvelope<T>)context.Envelope, context.CancellationToken);
}
