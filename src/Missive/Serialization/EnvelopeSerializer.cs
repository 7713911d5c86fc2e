using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Missive.Serialization;

/// <summary>
/// What every Missive envelope serializer shares: the type map, the settings frozen from the options, a pool of
/// buffer writers, and one template method per direction.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item><see cref="Serialize{T}"/> and <see cref="SerializeBatch"/> check their arguments and validate every
/// envelope before the format writes it.</item>
/// <item><see cref="Deserialize"/> and <see cref="DeserializeBatch"/> apply the input size limit before the format
/// reads; on failure they keep the raw body on the exception and log a line without content.</item>
/// <item>Building the serializer freezes its options: changing them afterwards throws.</item>
/// <item>Dispose the serializer (the DI container does) to return the pooled buffers it holds.</item>
/// </list>
/// </remarks>
public abstract class EnvelopeSerializer : IEnvelopeSerializer, IBatchEnvelopeSerializer, IDisposable
{
    private protected EnvelopeSerializer(MessageTypeMap messageTypes, ILogger? logger)
    {
        ArgumentNullException.ThrowIfNull(messageTypes);
        Settings = messageTypes.Freeze();
        MessageTypes = messageTypes;
        Logger = logger ?? NullLogger.Instance;
        Pools = new SerializerPools(Settings);
    }

    /// <inheritdoc />
    public abstract string ContentType { get; }

    /// <inheritdoc />
    public abstract string BatchContentType { get; }

    /// <summary>Gets the registered message types.</summary>
    public MessageTypeMap MessageTypes { get; }

    /// <inheritdoc />
    public abstract EnvelopeFormat Format { get; }

    /// <summary>Gets the settings frozen from the options when the serializer was built.</summary>
    internal SerializerSettings Settings { get; }

    /// <summary>Gets the buffer and writer pools this serializer rents from.</summary>
    internal SerializerPools Pools { get; }

    private protected ILogger Logger { get; }

    /// <inheritdoc />
    public int Serialize<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentNullException.ThrowIfNull(envelope);
        EnvelopeValidator.Validate(envelope, position: -1);
        try
        {
            return SerializeCore(destination, envelope, MessageTypes.Get<T>());
        }
        catch (Exception e) when (IsWriteFailure(e))
        {
            throw WriteFailure(e);
        }
    }

    /// <inheritdoc />
    public int SerializeBatch(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentNullException.ThrowIfNull(envelopes);
        for (int i = 0; i < envelopes.Count; i++)
        {
            MessageEnvelope envelope = envelopes[i] ?? throw new ArgumentException("A batch cannot hold null envelopes.", nameof(envelopes));
            EnvelopeValidator.Validate(envelope, position: -1);
        }

        try
        {
            return SerializeBatchCore(destination, envelopes);
        }
        catch (Exception e) when (IsWriteFailure(e))
        {
            throw WriteFailure(e);
        }
    }

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
            Pools.Dispose();
        }
    }

    /// <summary>Writes one envelope, already validated, whose type is registered as <paramref name="info"/>.</summary>
    private protected abstract int SerializeCore<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope, MessageTypeInfo<T> info);

    /// <summary>Writes a batch of envelopes, each already validated and of a registered type.</summary>
    private protected abstract int SerializeBatchCore(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes);

    /// <summary>Reads one envelope from input within the size limit.</summary>
    private protected abstract MessageEnvelope DeserializeCore(in ReadOnlySequence<byte> source);

    /// <summary>Reads a batch from input within the size limit.</summary>
    private protected abstract IReadOnlyList<MessageEnvelope> DeserializeBatchCore(in ReadOnlySequence<byte> source);

    private protected void LogCreated() => SerializerLog.SerializerCreated(Logger, GetType().Name, ContentType);

    /// <summary>
    /// System.Text.Json reports invalid UTF-8 in a string, or an escaped unpaired surrogate, only when
    /// the string is decoded, as an <see cref="InvalidOperationException"/>. The JSON readers convert
    /// payload failures themselves, so one that reaches them comes from decoding a string.
    /// </summary>
    internal InvalidEnvelopeException InvalidText(InvalidOperationException e)
        => ThrowHelper.InvalidText(-1, Settings.LogMessageContent ? e : null);

    /// <summary>
    /// A failure inside System.Text.Json or a message serializer while writing the data (a converter that
    /// throws, whatever it throws, a cycle, data deeper than the depth limit, a type it cannot write): the caller
    /// gets Missive's exception, whatever the format and whichever serializer. Only the process-fatal exceptions,
    /// Missive's own typed errors and the serializer's own disposal pass through.
    /// </summary>
    private static bool IsWriteFailure(Exception e)
        => e is not (MissiveException or ObjectDisposedException) && !ContentSafety.IsFatal(e);

    /// <summary>The error: it names the type of what was thrown, and carries the exception itself only when content may be shown.</summary>
    private InvalidEnvelopeException WriteFailure(Exception e)
        => ThrowHelper.Create(InvalidEnvelopeReason.InvalidData, "The message could not be written as the envelope's data" + (Settings.LogMessageContent ? $": {e.GetType().Name}: {e.Message}" : $" ({e.GetType().Name})"), attribute: CloudEventAttributeNames.Data, inner: ContentSafety.Inner(e, Settings.LogMessageContent));

    private void CheckSize(long length)
    {
        if (length > Settings.MaxEnvelopeSize)
        {
            InvalidEnvelopeException e = ThrowHelper.InputTooLarge(length, Settings.MaxEnvelopeSize);
            SerializerLog.EnvelopeRejected(Logger, ContentType, length, e.Reason, e.Position);
            throw e;
        }
    }

    private void OnRejected(InvalidEnvelopeException e, in ReadOnlySequence<byte> source)
    {
        if (e.RawBody.IsEmpty)
        {
            e.RawBody = source.ToArray();
        }

        SerializerLog.EnvelopeRejected(Logger, ContentType, source.Length, e.Reason, e.Position);
        if (Settings.LogMessageContent && Logger.IsEnabled(LogLevel.Trace))
        {
            SerializerLog.RejectedContent(Logger, Format == EnvelopeFormat.Protobuf ? Convert.ToBase64String(e.RawBody.Span) : Encoding.UTF8.GetString(e.RawBody.Span));
        }
    }
}
