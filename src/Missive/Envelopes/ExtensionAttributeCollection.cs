using System;
using System.Collections;
using System.Collections.Generic;

namespace Missive;

/// <summary>
/// The extension attributes of an envelope: names mapped to typed values, kept in insertion order.
/// </summary>
/// <remarks>
/// Names are validated as the CloudEvents specification says: lower-case ASCII letters and digits,
/// and not one of the names the specification or the JSON format reserve (<c>id</c>, <c>source</c>,
/// <c>specversion</c>, <c>type</c>, <c>time</c>, <c>datacontenttype</c>, <c>dataschema</c>,
/// <c>subject</c>, <c>data</c>). Order is kept because both wire formats write extensions in the
/// order they were added. Look-ups are linear: envelopes carry a handful of extensions.
/// </remarks>
public sealed class ExtensionAttributeCollection : IReadOnlyCollection<KeyValuePair<string, CloudEventAttributeValue>>
{
    private KeyValuePair<string, CloudEventAttributeValue>[] _items = [];
    private int _count;

    /// <summary>Gets the number of extension attributes.</summary>
    public int Count => _count;

    /// <summary>Gets or sets the value of an extension attribute.</summary>
    /// <param name="name">The attribute name. Must not be null.</param>
    /// <returns>The value.</returns>
    /// <exception cref="KeyNotFoundException">On get: no attribute has that name.</exception>
    /// <exception cref="ArgumentException">On set: the name is not a valid extension name, or the value is <c>default</c>.</exception>
    public CloudEventAttributeValue this[string name]
    {
        get => TryGetValue(name, out var value) ? value : throw new KeyNotFoundException("No extension attribute has that name.");
        set => Set(name, value, replace: true);
    }

    /// <summary>Adds an extension attribute.</summary>
    /// <param name="name">The attribute name. Must not be null.</param>
    /// <param name="value">The value. Must not be <c>default</c>.</param>
    /// <exception cref="ArgumentException">The name is invalid, reserved or already present, or the value is <c>default</c>.</exception>
    public void Add(string name, CloudEventAttributeValue value) => Set(name, value, replace: false);

    /// <summary>Looks up an extension attribute.</summary>
    /// <param name="name">The attribute name. Must not be null.</param>
    /// <param name="value">The value when found.</param>
    /// <returns><c>true</c> when found.</returns>
    public bool TryGetValue(string name, out CloudEventAttributeValue value)
    {
        int index = IndexOf(name);
        value = index >= 0 ? _items[index].Value : default;
        return index >= 0;
    }

    /// <summary>Tells whether an extension attribute is present.</summary>
    /// <param name="name">The attribute name. Must not be null.</param>
    /// <returns><c>true</c> when present.</returns>
    public bool ContainsKey(string name) => IndexOf(name) >= 0;

    /// <summary>Removes an extension attribute.</summary>
    /// <param name="name">The attribute name. Must not be null.</param>
    /// <returns><c>true</c> when it was present.</returns>
    public bool Remove(string name)
    {
        int index = IndexOf(name);
        if (index < 0)
        {
            return false;
        }

        _count--;
        Array.Copy(_items, index + 1, _items, index, _count - index);
        _items[_count] = default;
        return true;
    }

    /// <summary>Gets an enumerator that does not allocate.</summary>
    /// <returns>The enumerator.</returns>
    public Enumerator GetEnumerator() => new(this);

    IEnumerator<KeyValuePair<string, CloudEventAttributeValue>> IEnumerable<KeyValuePair<string, CloudEventAttributeValue>>.GetEnumerator()
    {
        for (int i = 0; i < _count; i++)
        {
            yield return _items[i];
        }
    }

    IEnumerator IEnumerable.GetEnumerator() => ((IEnumerable<KeyValuePair<string, CloudEventAttributeValue>>)this).GetEnumerator();

    /// <summary>Gets the attribute at a position (insertion order).</summary>
    internal ref readonly KeyValuePair<string, CloudEventAttributeValue> ItemAt(int index) => ref _items[index];

    /// <summary>Adds a name the caller has already validated and checked for duplicates.</summary>
    internal void AddTrusted(string name, CloudEventAttributeValue value)
    {
        if (_count == _items.Length)
        {
            Array.Resize(ref _items, _count == 0 ? 2 : _count * 2); // two: trace context is traceparent and tracestate
        }

        _items[_count++] = new(name, value);
    }

    internal int IndexOf(ReadOnlySpan<char> name)
    {
        for (int i = 0; i < _count; i++)
        {
            if (name.SequenceEqual(_items[i].Key))
            {
                return i;
            }
        }

        return -1;
    }

    private int IndexOf(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return IndexOf(name.AsSpan());
    }

    private void Set(string name, CloudEventAttributeValue value, bool replace)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (!CloudEventRules.IsValidAttributeName(name))
        {
            throw new ArgumentException("Extension attribute names must be non-empty and made of lower-case ASCII letters and digits.", nameof(name));
        }

        if (CloudEventAttributeNames.IsReserved(name))
        {
            throw new ArgumentException("That name is reserved by the CloudEvents specification and cannot be an extension attribute.", nameof(name));
        }

        if (value.Type == CloudEventAttributeType.None)
        {
            throw new ArgumentException("An extension attribute needs a value.", nameof(value));
        }

        int index = IndexOf(name);
        if (index >= 0)
        {
            if (!replace)
            {
                throw new ArgumentException("An extension attribute with that name is already present.", nameof(name));
            }

            _items[index] = new(name, value);
            return;
        }

        AddTrusted(name, value);
    }

    /// <summary>Enumerates extension attributes in insertion order without allocating.</summary>
    public struct Enumerator
    {
        private readonly ExtensionAttributeCollection _owner;
        private int _index;

        internal Enumerator(ExtensionAttributeCollection owner)
        {
            _owner = owner;
            _index = -1;
        }

        /// <summary>Gets the current attribute.</summary>
        public readonly KeyValuePair<string, CloudEventAttributeValue> Current => _owner._items[_index];

        /// <summary>Moves to the next attribute.</summary>
        /// <returns><c>false</c> at the end.</returns>
        public bool MoveNext() => ++_index < _owner._count;
    }
}
