using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;

namespace Missive.Bus;

/// <summary>Calls <see cref="IMessageHandler{T}"/>.</summary>
internal sealed class HandlerInvoker<T> : HandlerInvoker
{
    public override HandleStep Handler { get; } = Invoke;

    private static Task Invoke(HandleContext context)
        => context.Services.GetRequiredService<IMessageHandler<T>>().HandleAsync((MessageEnvelope<T>)context.Envelope, context.CancellationToken);
}
