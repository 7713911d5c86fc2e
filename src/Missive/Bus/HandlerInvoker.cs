using System;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;

namespace Missive.Bus;

/// <summary>Calls the handler of a message type whose envelope arrives as the non-generic base.</summary>
internal abstract class HandlerInvoker
{
    public abstract Task InvokeAsync(IServiceProvider services, MessageEnvelope envelope, CancellationToken cancellationToken);
}
