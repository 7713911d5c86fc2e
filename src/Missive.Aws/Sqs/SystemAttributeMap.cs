using System;
using System.Collections;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;

namespace Missive.Aws.Sqs;

/// <summary>
/// The few system attributes of a received message (SQS returns at most the eight the transport asks for), as two
/// arrays searched in order: a lookup among so few costs less than hashing, and the map costs a third of a
/// <see cref="Dictionary{TKey, TValue}"/>'s memory. Names compare ordinally; a name repeated in the answer keeps its
/// last value. Filled once while the answer is read, then only read.
/// </summary>
internal sealed class SystemAttributeMap : IReadOnlyDictionary<string, string>
{
    private string[] _names = new string[4];
    private string[] _values = new string[4];
    private int _count;

    public int Count => _count;

    public IEnumerable<string> Keys => new ArraySegment<string>(_names, 0, _count);

    public IEnumerable<string> Values => new ArraySegment<string>(_values, 0, _count);

    public string this[string key] => TryGetValue(key, out string? value) ? value : throw new KeyNotFoundException($"The system attribute '{key}' is not among the message's.");

    /// <summary>Sets an attribute while the answer is read.</summary>
    public void Set(string name, string value)
    {
        int at = IndexOf(name);
        if (at >= 0)
        {
            _values[at] = value;
            return;
        }

        if (_count == _names.Length)
        {
            Array.Resize(ref _names, _count * 2);
            Array.Resize(ref _values, _count * 2);
        }

        _names[_count] = name;
        _values[_count++] = value;
    }

    public bool ContainsKey(string key) => IndexOf(key) >= 0;

    public bool TryGetValue(string key, [MaybeNullWhen(false)] out string value)
    {
        int at = IndexOf(key);
        value = at >= 0 ? _values[at] : null;
        return at >= 0;
    }

    public IEnumerator<KeyValuePair<string, string>> GetEnumerator()
    {
        for (int i = 0; i < _count; i++)
        {
            yield return new KeyValuePair<string, string>(_names[i], _values[i]);
        }
    }

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

    private int IndexOf(string key)
    {
        ArgumentNullException.ThrowIfNull(key);
        for (int i = 0; i < _count; i++)
        {
            if (string.Equals(_names[i], key, StringComparison.Ordinal))
            {
                return i;
            }
        }

        return -1;
    }
}
