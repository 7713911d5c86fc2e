using System;
using System.Text.Json;

namespace Missive.Offload;

/// <summary>A JSON envelope parsed once for <c>dataref</c>: its data, to store, and the envelope without it, to send once the data's location is known.</summary>
internal sealed class DataRefSplit : IDisposable
{
    private readonly JsonDocument _document;

    internal DataRefSplit(JsonDocument document, byte[] data)
    {
        _document = document;
        Data = data;
    }

    /// <summary>Gets the data itself: the JSON of JSON data, the text of text data, the bytes of <c>data_base64</c>.</summary>
    public byte[] Data { get; }

    /// <summary>The envelope without its data, with <c>dataref</c> naming where the data was stored.</summary>
    public byte[] EnvelopeFor(PayloadLocation location) => DataRef.WithoutData(_document, location);

    public void Dispose() => _document.Dispose();
}
