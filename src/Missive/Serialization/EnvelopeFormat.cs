namespace Missive.Serialization;

/// <summary>The envelope wire formats.</summary>
public enum EnvelopeFormat
{
    /// <summary>CloudEvents JSON (<c>application/cloudevents+json</c>).</summary>
    Json = 0,

    /// <summary>CloudEvents protobuf (<c>application/cloudevents+protobuf</c>); needs <c>EnableExperimentalFeatures()</c>.</summary>
    Protobuf = 1,
}
