using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Missive.Buffers;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>
/// What reading an EventBridge <c>detail</c> object where it lies gave: its envelope, or the failure of its data, to
/// be reported (not read again) if the document proves to be an EventBridge event with that detail.
/// </summary>
internal struct DetailInPlace
{
    public MessageEnvelope? Envelope;
    public InvalidEnvelopeException? DataFailure;

    /// <summary>The registration a native message rule read the detail as (then <see cref="Envelope"/> holds only the message), or <c>null</c>.</summary>
    public MessageTypeInfo? NativeType;
}
