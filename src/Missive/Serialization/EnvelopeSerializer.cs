using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.ObjectPool;
using Missive.Buffers;
using Missive.Diagnostics;
using Missive.Json;

namespace Missive.Serialization;

/// <summary>
/// What every Missive envelope serializer shares: the type map, the options, a pool of buffer
/// writers, the input size limit, and the bookkeeping on failure (the raw body kept on the
/// exception, a log line without content).
/// </summary>
/// <remarks>Dispose the serializer (the DI container does) to return the pooled buffers it holds.</remarks>
public abstract class EnvelopeSerializer : IEnvelopeSerializer, IBatchEnvelopeSerializer, IDisposable
{
    private readonly DefaultObjectPool<PooledBufferWriter> _bufferPool;
    private readonly DefaultObjectPool<Utf8JsonWriter> _jsonWriterPool;

    private protected EnvelopeSerializer(MessageTypeMap messageTypes, ILogger? logger)
    {
        ArgumentNullException.ThrowIfNull(messageTypes);
        messageTypes.Options.Validate();
        messageTypes.Freeze();
        MessageTypes = messageTypes;
        Options = messageTypes.Options;
        Logger = logger ?? NullLogger.Instance;
        _bufferPool = (DefaultObjectPool<PooledBufferWriter>)new DefaultObjectPoolProvider().Create(
            new PooledBufferWriterPolicy(Options.BufferPool, Options.InitialBufferSize, Options.CleanRentedBuffers, Options.MaxRetainedBufferSize));
        _jsonWriterPool = (DefaultObjectPool<Utf8JsonWriter>)new DefaultObjectPoolProvider().Create(new Utf8JsonWriterPolicy(JsonEnvelopeSettings.GetWriterOptions(Options)));
    }

    /// <inheritdoc />
    public abstract string ContentType { get; }

    /// <inheritdoc />
    public abstract string BatchContentType { get; }

    /// <summary>Gets the registered message types.</summary>
    public MessageTypeMap MessageTypes { get; }

    /// <summary>Gets the options.</summary>
    public SerializationOptions Options { get; }

    /// <summary>Gets whether the format is binary (protobuf): text conveniences then use base64.</summary>
    public virtual bool IsBinaryFormat => false;

    private protected ILogger Logger { get; }

    /// <inheritdoc />
    public abstract int Serialize<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope);

    /// <inheritdoc />
    public abstract int SerializeBatch(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes);

    /// <inheritdoc />
    public MessageEnvelope Deserialize(in ReadOnlySequence<byte> source)
    {
        CheckSize(source.Length);
        try
        {
            return DeserializeCore(source);
        }
        catch (InvalidEnvelopeException e)
        {
            OnRejected(e, source);
            throw;
        }

    }

    /// <inheritdoc />
    public IReadOnlyList<MessageEnvelope> DeserializeBatch(in ReadOnlySequence<byte> source)
    {
        CheckSize(source.Length);
        try
        {
            return DeserializeBatchCore(source);
        }
        catch (InvalidEnvelopeException e)
        {
            OnRejected(e, source);
            throw;
        }

    }

    /// <summary>Returns the pooled buffers this serializer holds to their array pool.</summary>
    public void Dispose()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
    }

    /// <summary>Releases pooled resources.</summary>
    /// <param name="disposing"><c>true</c> when called from <see cref="Dispose()"/>.</param>
    protected virtual void Dispose(bool disposing)
    {
        if (disposing)
        {
            ((IDisposable)_bufferPool).Dispose();
            ((IDisposable)_jsonWriterPool).Dispose();
        }
    }

    internal PooledBufferWriter RentBuffer() => _bufferPool.Get();

    internal void ReturnBuffer(PooledBufferWriter buffer) => _bufferPool.Return(buffer);

    /// <summary>Rents a pooled <see cref="Utf8JsonWriter"/> pointed at <paramref name="destination"/>.</summary>
    internal Utf8JsonWriter RentJsonWriter(IBufferWriter<byte> destination)
    {
        Utf8JsonWriter writer = _jsonWriterPool.Get();
        writer.Reset(destination);
        return writer;
    }

    internal void ReturnJsonWriter(Utf8JsonWriter writer) => _jsonWriterPool.Return(writer);

    private protected abstract MessageEnvelope DeserializeCore(in ReadOnlySequence<byte> source);

    private protected abstract IReadOnlyList<MessageEnvelope> DeserializeBatchCore(in ReadOnlySequence<byte> source);

    private protected void LogCreated() => Log.SerializerCreated(Logger, GetType().Name, ContentType);

    /// <summary>
    /// System.Text.Json reports invalid UTF-8 in a string, or an escaped unpaired surrogate, only when
    /// the string is decoded, as an <see cref="InvalidOperationException"/>. The JSON readers convert
    /// payload failures themselves, so one that reaches them comes from decoding a string.
    /// </summary>
    internal InvalidEnvelopeException InvalidText(InvalidOperationException e)
        => ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "A string in the input is not valid UTF-8, or escapes an unpaired surrogate", inner: Options.LogMessageContent ? e : null);

    private void CheckSize(long length)
    {
        if (length > Options.MaxEnvelopeSize)
        {
            var e = ThrowHelper.Create(InvalidEnvelopeReason.LimitExceeded, $"The input is {length} bytes, over the limit of {Options.MaxEnvelopeSize} bytes (SerializationOptions.MaxEnvelopeSize).");
            Log.EnvelopeRejected(Logger, ContentType, length, e.Reason, e.Position);
            throw e;
        }
    }

    private void OnRejected(InvalidEnvelopeException e, in ReadOnlySequence<byte> source)
    {
        if (e.RawBody.IsEmpty)
        {
            e.RawBody = source.ToArray();
        }

        Log.EnvelopeRejected(Logger, ContentType, source.Length, e.Reason, e.Position);
        if (Options.LogMessageContent && Logger.IsEnabled(LogLevel.Trace))
        {
            Log.RejectedContent(Logger, IsBinaryFormat ? Convert.ToBase64String(e.RawBody.Span) : Encoding.UTF8.GetString(e.RawBody.Span));
        }
    }
}
