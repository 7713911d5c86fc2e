using System;
using System.Buffers;
using System.Collections.Frozen;
using System.Text.Json;
using Missive.Lexing;

namespace Missive.Serialization;

/// <summary>
/// What the serializers and the inbound reader read from <see cref="SerializationOptions"/>, copied
/// once when they are built, which freezes the options (changing them afterwards throws). It also
/// holds the JSON writer and reader settings derived from the options, so that both JSON serializers
/// write the same bytes and read with the same limits.
/// </summary>
internal sealed class SerializerSettings
{
    private SerializerSettings(SerializationOptions options)
    {
        CleanRentedBuffers = options.CleanRentedBuffers;
        InitialBufferSize = options.InitialBufferSize;
        MaxRetainedBufferSize = options.MaxRetainedBufferSize;
        BufferPool = options.BufferPool;
        MaxEnvelopeSize = options.MaxEnvelopeSize;
        MaxJsonDepth = options.MaxJsonDepth;
        MaxExtensionAttributes = options.MaxExtensionAttributes;
        MaxAttributeNameLength = options.MaxAttributeNameLength;
        MaxAttributeValueLength = options.MaxAttributeValueLength;
        MaxBatchSize = options.MaxBatchSize;
        LogMessageContent = options.LogMessageContent;
        ExtensionAttributeTypes = options.ExtensionAttributeTypes.ToFrozenDictionary(StringComparer.Ordinal);
        JsonWriterOptions = new JsonWriterOptions
        {
            // The encoder for envelope strings is the one message data is written with.
            Encoder = options.JsonSerializerOptions?.Encoder ?? options.JsonSerializerContext?.Options.Encoder,
            Indented = false,
            MaxDepth = options.MaxJsonDepth,
        };
        JsonReaderOptions = new JsonReaderOptions
        {
            MaxDepth = options.MaxJsonDepth,
            CommentHandling = JsonCommentHandling.Disallow,
            AllowTrailingCommas = false,
        };
        WrapperReaderOptions = JsonReaderOptions with { MaxDepth = options.MaxJsonDepth + 1 };
        Strings = new KnownStrings();
    }

    public bool CleanRentedBuffers { get; }

    public int InitialBufferSize { get; }

    public int MaxRetainedBufferSize { get; }

    public ArrayPool<byte> BufferPool { get; }

    public int MaxEnvelopeSize { get; }

    public int MaxJsonDepth { get; }

    public int MaxExtensionAttributes { get; }

    public int MaxAttributeNameLength { get; }

    public int MaxAttributeValueLength { get; }

    public int MaxBatchSize { get; }

    public bool LogMessageContent { get; }

    public FrozenDictionary<string, CloudEventAttributeType> ExtensionAttributeTypes { get; }

    public JsonWriterOptions JsonWriterOptions { get; }

    /// <summary>Strings that recur from message to message, with their encoded forms, shared by everything built on these settings.</summary>
    public KnownStrings Strings { get; }

    public JsonReaderOptions JsonReaderOptions { get; }

    /// <summary>
    /// For reading an SNS notification or EventBridge event around an envelope: one level deeper than
    /// <see cref="JsonReaderOptions"/>, so that the wrapper's own level does not eat into the envelope's depth budget.
    /// </summary>
    public JsonReaderOptions WrapperReaderOptions { get; }

    /// <summary>Checks the options and copies them.</summary>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range.</exception>
    public static SerializerSettings From(SerializationOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        options.Freeze(); // what is copied now is what runs: a later change would be ignored, so it throws
        return new SerializerSettings(options);
    }

    /// <summary>Keeps the recurring strings of an envelope that was read successfully: its source and extension names.</summary>
    public void KeepRecurringStrings(MessageEnvelope envelope)
    {
        Strings.TryAdd(envelope.Source);
        if (envelope.ExtensionsOrNull is { } extensions)
        {
            for (int i = 0; i < extensions.Count; i++)
            {
                Strings.TryAdd(extensions.ItemAt(i).Key);
            }
        }
    }

    /// <summary>Rents an array of at least <paramref name="minimumLength"/> bytes, cleared on dispose as <see cref="CleanRentedBuffers"/> says.</summary>
    public Buffers.RentedBuffer Rent(int minimumLength) => new(BufferPool, minimumLength, CleanRentedBuffers);
}
