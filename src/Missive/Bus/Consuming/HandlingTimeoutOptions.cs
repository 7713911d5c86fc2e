using System;
using System.Collections.Generic;

namespace Missive.Bus;

/// <summary>How long handlers may take, per message type, for <see cref="HandlingTimeoutMiddleware"/>.</summary>
public sealed class HandlingTimeoutOptions
{
    private readonly Dictionary<Type, TimeSpan> _perType = [];

    /// <summary>Gets or sets the timeout of message types without one of their own, or <c>null</c> for none.</summary>
    public TimeSpan? DefaultTimeout { get; set; }

    /// <summary>Sets the timeout of the handler of <typeparamref name="T"/>.</summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="timeout">A positive timeout.</param>
    /// <returns>These options.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is not positive.</exception>
    public HandlingTimeoutOptions For<T>(TimeSpan timeout)
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(timeout, TimeSpan.Zero);
        _perType[typeof(T)] = timeout;
        return this;
    }

    /// <summary>Gets the timeout of a message type, or <c>null</c> for none.</summary>
    /// <param name="messageType">The message type.</param>
    /// <returns>The timeout.</returns>
    public TimeSpan? TimeoutFor(Type messageType) => _perType.TryGetValue(messageType, out TimeSpan timeout) ? timeout : DefaultTimeout;
}
