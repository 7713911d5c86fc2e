using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Missive.Serialization;

/// <summary>
/// Options for envelope serialization, configured once at startup
/// (<c>MessageBusBuilder.ConfigureSerialization</c>) and read by the serializers when they are created.
/// </summary>
/// <remarks>
/// The first serializer, type map or inbound reader built on the options freezes them, as System.Text.Json freezes
/// its <see cref="System.Text.Json.JsonSerializerOptions"/> on first use: from then on, setting an option or changing
/// <see cref="ExtensionAttributeTypes"/> throws <see cref="InvalidOperationException"/>, rather than being ignored
/// by what was already built.
/// </remarks>
public sealed class SerializationOptions
{
    /// <summary>The default of <see cref="MaxEnvelopeSize"/>: 1 MiB, the largest SQS message (and SNS, EventBridge) body.</summary>
    public const int DefaultMaxEnvelopeSize = 1024 * 1024;

    private bool _cleanRentedBuffers = true;
    private int _initialBufferSize = 2048;
    private int _maxRetainedBufferSize = 256 * 1024;
    private ArrayPool<byte> _bufferPool = ArrayPool<byte>.Shared;
    private int _maxEnvelopeSize = DefaultMaxEnvelopeSize;
    private int _maxJsonDepth = 64;
    private int _maxExtensionAttributes = 64;
    private int _maxAttributeNameLength = 128;
    private int _maxAttributeValueLength = 64 * 1024;
    private int _maxBatchSize = 1000;
    private JsonSerializerOptions? _jsonSerializerOptions;
    private JsonSerializerContext? _jsonSerializerContext;
    private bool _allowReflectionFallback;
    private IStringMessageSerializer? _messageSerializer;
    private bool _logMessageContent;
    private readonly FreezableDictionary<string, CloudEventAttributeType> _extensionAttributeTypes;
    private bool _frozen;

    /// <summary>Creates options with the defaults.</summary>
    public SerializationOptions()
    {
        _extensionAttributeTypes = new FreezableDictionary<string, CloudEventAttributeType>(this, StringComparer.Ordinal);
    }

    /// <summary>
    /// Gets or sets whether the used region of every rented array is zeroed before the array goes
    /// back to the pool. Default <c>true</c>. Turning it off saves a memory clear per envelope, but
    /// message bytes then stay in pooled arrays that other code in the process will be handed:
    /// leave it on when envelopes carry personal or secret data.
    /// </summary>
    public bool CleanRentedBuffers
    {
        get => _cleanRentedBuffers;
        set => _cleanRentedBuffers = Unfrozen(value);
    }

    /// <summary>Gets or sets the size of the first array a pooled buffer writer rents. Default 2048 bytes.</summary>
    public int InitialBufferSize
    {
        get => _initialBufferSize;
        set => _initialBufferSize = Unfrozen(value);
    }

    /// <summary>
    /// Gets or sets the largest array an idle pooled buffer writer keeps; a writer that grew past it
    /// returns its array to the pool when it goes back to its own pool. Default 256 KiB.
    /// </summary>
    public int MaxRetainedBufferSize
    {
        get => _maxRetainedBufferSize;
        set => _maxRetainedBufferSize = Unfrozen(value);
    }

    /// <summary>Gets or sets the pool that buffers are rented from. Default <see cref="ArrayPool{T}.Shared"/>.</summary>
    public ArrayPool<byte> BufferPool
    {
        get => _bufferPool;
        set => _bufferPool = Unfrozen(value);
    }

    /// <summary>
    /// Gets or sets the largest envelope (in bytes) a serializer reads; larger input is rejected
    /// before it is parsed. Default <see cref="DefaultMaxEnvelopeSize"/>. It limits reading only: what is sent is
    /// checked against its destination's limit by the transport.
    /// </summary>
    public int MaxEnvelopeSize
    {
        get => _maxEnvelopeSize;
        set => _maxEnvelopeSize = Unfrozen(value);
    }

    /// <summary>Gets or sets the deepest JSON nesting accepted when reading (the envelope object counts as one level). Default 64.</summary>
    public int MaxJsonDepth
    {
        get => _maxJsonDepth;
        set => _maxJsonDepth = Unfrozen(value);
    }

    /// <summary>Gets or sets the most extension attributes an envelope may carry when read. Default 64.</summary>
    public int MaxExtensionAttributes
    {
        get => _maxExtensionAttributes;
        set => _maxExtensionAttributes = Unfrozen(value);
    }

    /// <summary>Gets or sets the longest attribute name accepted when reading, in bytes (16 to 256). Default 128.</summary>
    public int MaxAttributeNameLength
    {
        get => _maxAttributeNameLength;
        set => _maxAttributeNameLength = Unfrozen(value);
    }

    /// <summary>
    /// Gets or sets the longest attribute value accepted when reading, in UTF-8 bytes (decoded bytes for
    /// binary values): every context attribute and extension, not the data. Default 64 KiB.
    /// </summary>
    public int MaxAttributeValueLength
    {
        get => _maxAttributeValueLength;
        set => _maxAttributeValueLength = Unfrozen(value);
    }

    /// <summary>Gets or sets the most envelopes a batch may hold when read. Default 1000.</summary>
    public int MaxBatchSize
    {
        get => _maxBatchSize;
        set => _maxBatchSize = Unfrozen(value);
    }

    /// <summary>
    /// Gets or sets the System.Text.Json options used for message data, and whose encoder escapes
    /// envelope strings. <c>null</c> means System.Text.Json's defaults.
    /// </summary>
    public JsonSerializerOptions? JsonSerializerOptions
    {
        get => _jsonSerializerOptions;
        set => _jsonSerializerOptions = Unfrozen(value);
    }

    /// <summary>
    /// Gets or sets a source-generated context that supplies the metadata for message types
    /// (trimming and native AOT safe). When set, every JSON message type must be in it (or be a JSON DOM
    /// type: <see cref="JsonElement"/>, <see cref="JsonDocument"/>, <c>JsonNode</c> and its kinds, whose
    /// metadata Missive supplies): another type fails at startup, in every runtime, unless
    /// <see cref="JsonSerializerOptions"/> has a resolver for it or <see cref="AllowReflectionFallback"/> is on.
    /// </summary>
    /// <remarks>
    /// A converter of the application's in it that throws (whatever the type), or answers <c>null</c> for data that is not
    /// <c>null</c>, makes the data invalid as a failing <see cref="IStringMessageSerializer"/> does: see its remarks.
    /// </remarks>
    public JsonSerializerContext? JsonSerializerContext
    {
        get => _jsonSerializerContext;
        set => _jsonSerializerContext = Unfrozen(value);
    }

    /// <summary>
    /// Gets or sets whether message types that <see cref="JsonSerializerContext"/> does not know may use
    /// reflection metadata instead of failing at startup. Default <c>false</c>. Reflection works under JIT
    /// only: a trimmed or native AOT application fails at startup either way.
    /// </summary>
    public bool AllowReflectionFallback
    {
        get => _allowReflectionFallback;
        set => _allowReflectionFallback = Unfrozen(value);
    }

    /// <summary>
    /// Gets or sets a string-based message serializer that replaces System.Text.Json for message
    /// data of every type registered without a serializer of its own (binary message types keep being written
    /// as bytes; <c>AddMessageType(identifier, serializer)</c> gives one type its own). <c>null</c> by default.
    /// </summary>
    public IStringMessageSerializer? MessageSerializer
    {
        get => _messageSerializer;
        set => _messageSerializer = Unfrozen(value);
    }

    /// <summary>
    /// Gets the declared types of known extension attributes. The JSON format writes every
    /// non-boolean, non-integer value as a string; a name listed here is read back with its declared
    /// type (for example base64 text as Binary). Undeclared string values read as String.
    /// </summary>
    public IDictionary<string, CloudEventAttributeType> ExtensionAttributeTypes => _extensionAttributeTypes;

    /// <summary>
    /// Gets or sets whether message content and attribute values may appear in exception messages
    /// and logs. Default <c>false</c>: only attribute names, sizes and positions are reported.
    /// </summary>
    public bool LogMessageContent
    {
        get => _logMessageContent;
        set => _logMessageContent = Unfrozen(value);
    }

    /// <summary>Checks the options and throws <see cref="ArgumentOutOfRangeException"/> naming the first bad one.</summary>
    public void Validate()
    {
        ArgumentNullException.ThrowIfNull(BufferPool, nameof(BufferPool));
        foreach ((string option, string problem) in Problems())
        {
            throw new ArgumentOutOfRangeException(option, problem);
        }
    }

    /// <summary>Every option out of range, with what to set instead (the bus lists them all at startup).</summary>
    internal IEnumerable<(string Option, string Problem)> Problems()
    {
        if (BufferPool is null)
        {
            yield return (nameof(BufferPool), "SerializationOptions.BufferPool is null: leave it at ArrayPool<byte>.Shared or set a pool.");
        }

        if (InitialBufferSize < 16)
        {
            yield return (nameof(InitialBufferSize), $"SerializationOptions.InitialBufferSize is {InitialBufferSize}: set it to 16 or more (default 2048).");
        }

        if (MaxRetainedBufferSize < 0)
        {
            yield return (nameof(MaxRetainedBufferSize), $"SerializationOptions.MaxRetainedBufferSize is {MaxRetainedBufferSize}: set it to 0 or more (default 256 KiB).");
        }

        if (MaxEnvelopeSize < 64)
        {
            yield return (nameof(MaxEnvelopeSize), $"SerializationOptions.MaxEnvelopeSize is {MaxEnvelopeSize}: set it to 64 or more (default 1 MiB, SQS's message limit).");
        }

        if (MaxJsonDepth < 2)
        {
            yield return (nameof(MaxJsonDepth), $"SerializationOptions.MaxJsonDepth is {MaxJsonDepth}: set it to 2 or more (default 64).");
        }

        if (MaxExtensionAttributes < 0)
        {
            yield return (nameof(MaxExtensionAttributes), $"SerializationOptions.MaxExtensionAttributes is {MaxExtensionAttributes}: set it to 0 or more (default 64).");
        }

        if (MaxAttributeNameLength is < 16 or > 256)
        {
            yield return (nameof(MaxAttributeNameLength), $"SerializationOptions.MaxAttributeNameLength is {MaxAttributeNameLength}: set it to 16 to 256 (default 128).");
        }

        if (MaxBatchSize < 0)
        {
            yield return (nameof(MaxBatchSize), $"SerializationOptions.MaxBatchSize is {MaxBatchSize}: set it to 0 or more (default 1000).");
        }

        if (MaxAttributeValueLength < 256)
        {
            yield return (nameof(MaxAttributeValueLength), $"SerializationOptions.MaxAttributeValueLength is {MaxAttributeValueLength}: set it to 256 or more (default 64 KiB).");
        }
    }

    /// <summary>Gets whether the options were frozen by a serializer, type map or reader built on them.</summary>
    internal bool IsFrozen => _frozen;

    /// <summary>Freezes the options: what is built on them has read them, and later changes would be ignored.</summary>
    internal void Freeze() => _frozen = true;

    /// <summary>Lets a change through while the options are not frozen.</summary>
    private T Unfrozen<T>(T value)
    {
        ThrowIfFrozen();
        return value;
    }

    private void ThrowIfFrozen()
    {
        if (_frozen)
        {
            ThrowHelper.ThrowFrozenOptions();
        }
    }

    /// <summary>A dictionary that refuses changes once its options are frozen.</summary>
    private sealed class FreezableDictionary<TKey, TValue>(SerializationOptions owner, IEqualityComparer<TKey> comparer) : IDictionary<TKey, TValue>
        where TKey : notnull
    {
        private readonly Dictionary<TKey, TValue> _items = new(comparer);

        public ICollection<TKey> Keys => _items.Keys;

        public ICollection<TValue> Values => _items.Values;

        public int Count => _items.Count;

        public bool IsReadOnly => owner._frozen;

        public TValue this[TKey key]
        {
            get => _items[key];
            set
            {
                owner.ThrowIfFrozen();
                _items[key] = value;
            }
        }

        public void Add(TKey key, TValue value)
        {
            owner.ThrowIfFrozen();
            _items.Add(key, value);
        }

        public void Add(KeyValuePair<TKey, TValue> item) => Add(item.Key, item.Value);

        public void Clear()
        {
            owner.ThrowIfFrozen();
            _items.Clear();
        }

        public bool Contains(KeyValuePair<TKey, TValue> item) => ((ICollection<KeyValuePair<TKey, TValue>>)_items).Contains(item);

        public bool ContainsKey(TKey key) => _items.ContainsKey(key);

        public void CopyTo(KeyValuePair<TKey, TValue>[] array, int arrayIndex) => ((ICollection<KeyValuePair<TKey, TValue>>)_items).CopyTo(array, arrayIndex);

        public IEnumerator<KeyValuePair<TKey, TValue>> GetEnumerator() => _items.GetEnumerator();

        System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => _items.GetEnumerator();

        public bool Remove(TKey key)
        {
            owner.ThrowIfFrozen();
            return _items.Remove(key);
        }

        public bool Remove(KeyValuePair<TKey, TValue> item)
        {
            owner.ThrowIfFrozen();
            return ((ICollection<KeyValuePair<TKey, TValue>>)_items).Remove(item);
        }

        public bool TryGetValue(TKey key, [System.Diagnostics.CodeAnalysis.MaybeNullWhen(false)] out TValue value) => _items.TryGetValue(key, out value);
    }
}
