namespace Missive.Serialization;

/// <summary>The other buses whose messages Missive reads, each through metadata of its own (<see cref="MessageTypeInfo.Lenient"/>).</summary>
internal enum ForeignBus
{
    /// <summary>MassTransit's envelope and its raw JSON bodies.</summary>
    MassTransit = 0,

    /// <summary>NServiceBus's transport messages.</summary>
    NServiceBus = 1,
}
