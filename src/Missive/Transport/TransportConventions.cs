namespace Missive.Transport;

/// <summary>The names Missive uses on the wire around envelopes.</summary>
public static class TransportConventions
{
    /// <summary>
    /// The SQS or SNS message attribute that carries the envelope's content type. Missive sets it for
    /// protobuf envelopes (which travel as base64 text); a JSON envelope needs none.
    /// </summary>
    public const string ContentTypeAttribute = "contentType";

    /// <summary>
    /// EventBridge <c>detail</c> must be a JSON object, so a protobuf envelope travels as
    /// <c>{"contentType":"application/cloudevents+protobuf","body":"&lt;base64&gt;"}</c>; this is the name of the second member.
    /// </summary>
    public const string EventBridgeBodyMember = "body";
}
