using System;

namespace Missive;

/// <summary>Thrown at startup (or at first use) when the message bus or serialization is configured wrongly.</summary>
public sealed class MessageBusConfigurationException : MissiveException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="message">What is wrong and how to fix it.</param>
    public MessageBusConfigurationException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a cause.</summary>
    /// <param name="message">What is wrong and how to fix it.</param>
    /// <param name="innerException">The cause.</param>
    public MessageBusConfigurationException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }
}
