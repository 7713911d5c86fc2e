using System;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;

namespace Missive.Bus;

/// <summary>Calls <see cref="IMessageHandler{T}"/>.</summary>
internal sealed class HandlerInvoker<T> : HandlerInvoker
{
    public override Task InvokeAsync(IServiceProvider services, MessageEnvelope envelope, CancellationToken cancellationToken)
        => services.GetRequiredService<IMessageHandler<T>>().HandleAsync((MessageEnvelope<T>)envelope, cancellationToken);
}
