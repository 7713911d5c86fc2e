using System;
using System.Text.Json;

namespace Missive;

/// <summary>
/// The message of an envelope whose <c>type</c> no <c>AddMessageType</c> registers, read as it arrived so that a
/// fallback handler (<c>AddFallbackHandler</c>) can decide what to do with it. The envelope's attributes are read as
/// usual; <see cref="MessageEnvelope.Type"/> is the type identifier it carries.
/// </summary>
public sealed class UnregisteredMessage
{
    internal UnregisteredMessage(ReadOnlyMemory<byte> data, bool isJson)
    {
        Data = data;
        IsJson = isJson;
    }

    /// <summary>
    /// Gets the data: the UTF-8 JSON text of the <c>data</c> member when <see cref="IsJson"/> (an object, an array, a
    /// quoted string, …), else its bytes (<c>data_base64</c> decoded, or protobuf <c>binary_data</c> / <c>text_data</c>).
    /// </summary>
    public ReadOnlyMemory<byte> Data { get; }

    /// <summary>Gets whether <see cref="Data"/> is JSON text.</summary>
    public bool IsJson { get; }

    /// <summary>Parses <see cref="Data"/> as JSON.</summary>
    /// <returns>The JSON value, independent of any document.</returns>
    /// <exception cref="InvalidOperationException">The data is not JSON (<see cref="IsJson"/> is false).</exception>
    public JsonElement ToJsonElement()
    {
        if (!IsJson)
        {
            throw new InvalidOperationException("The data is not JSON; read it from Data as bytes.");
        }

        var reader = new Utf8JsonReader(Data.Span);
        return JsonElement.ParseValue(ref reader);
    }
}
