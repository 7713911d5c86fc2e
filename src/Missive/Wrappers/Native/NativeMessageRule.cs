using System;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>One rule: the type it names, its test, and how the type's registration is found.</summary>
internal sealed record NativeMessageRule(Type MessageType, string Description, NativeRuleTest Test, Func<MessageTypeMap, MessageTypeInfo> Registration)
{
    /// <summary>Gets the attribute and value an attribute rule matches, or <c>null</c> for another kind of rule.</summary>
    public (string Name, string Value)? Attribute { get; init; }

    /// <summary>Gets the source and detail-type an EventBridge rule matches, or <c>null</c> for another kind of rule.</summary>
    public EventBridgeRule? EventBridge { get; init; }

    /// <summary>Gets the message URN a MassTransit rule matches, or <c>null</c> for another kind of rule.</summary>
    public string? MassTransitUrn { get; init; }

    /// <summary>Gets the full type name an NServiceBus rule matches, or <c>null</c> for another kind of rule.</summary>
    public string? NServiceBusTypeName { get; init; }
}
