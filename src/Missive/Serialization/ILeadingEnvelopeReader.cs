using System;
using System.Diagnostics.CodeAnalysis;

namespace Missive.Serialization;

/// <summary>
/// Reads the envelope that starts a document and leaves whatever follows it: an envelope inside a wrapper is read
/// where it lies, without a pass to find its end first. The inbound reader is given one where the bus is composed
/// (the fast JSON serializer); without one it reads such an envelope the ordinary way.
/// </summary>
internal interface ILeadingEnvelopeReader
{
    /// <summary>Reads the envelope at the start of <paramref name="document"/>.</summary>
    /// <param name="document">The envelope and what follows it.</param>
    /// <param name="envelope">The envelope, when the read succeeded.</param>
    /// <param name="length">The envelope's length in bytes.</param>
    /// <returns>
    /// <c>false</c> when the envelope could not be read here, for any reason; the caller then reads it the
    /// ordinary way, which gives the exact error. A failure of the envelope's data is thrown instead
    /// (<see cref="InvalidEnvelopeException.DataReadFailed"/>): the application's code is not called twice.
    /// </returns>
    bool TryReadLeadingEnvelope(ReadOnlyMemory<byte> document, [NotNullWhen(true)] out MessageEnvelope? envelope, out int length);
}
