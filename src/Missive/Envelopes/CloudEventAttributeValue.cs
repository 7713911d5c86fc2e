using System;
using System.Globalization;

namespace Missive;

/// <summary>
/// A typed CloudEvents attribute value, used for extension attributes.
/// </summary>
/// <remarks>
/// A small immutable struct: booleans, integers and timestamps are held inline, strings, URIs and
/// byte arrays by reference, so reading and writing extensions boxes nothing. Two values are equal
/// when they have the same <see cref="Type"/> and the same value; timestamps compare as instants
/// (the UTC offset is not part of equality), binary values compare byte by byte.
/// </remarks>
public readonly struct CloudEventAttributeValue : IEquatable<CloudEventAttributeValue>
{
    private readonly object? _reference;
    private readonly long _scalar;
    private readonly short _offsetMinutes;

    private CloudEventAttributeValue(CloudEventAttributeType type, object? reference, long scalar, short offsetMinutes)
    {
        Type = type;
        _reference = reference;
        _scalar = scalar;
        _offsetMinutes = offsetMinutes;
    }

    /// <summary>Gets the CloudEvents type of the value; <see cref="CloudEventAttributeType.None"/> for <c>default</c>.</summary>
    public CloudEventAttributeType Type { get; }

    /// <summary>Creates a Boolean value.</summary>
    /// <param name="value">The value.</param>
    /// <returns>The attribute value.</returns>
    public static CloudEventAttributeValue FromBoolean(bool value) => new(CloudEventAttributeType.Boolean, null, value ? 1 : 0, 0);

    /// <summary>Creates an Integer value.</summary>
    /// <param name="value">The value.</param>
    /// <returns>The attribute value.</returns>
    public static CloudEventAttributeValue FromInteger(int value) => new(CloudEventAttributeType.Integer, null, value, 0);

    /// <summary>Creates a String value.</summary>
    /// <param name="value">The value. Must not be null.</param>
    /// <returns>The attribute value.</returns>
    public static CloudEventAttributeValue FromString(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        return new(CloudEventAttributeType.String, value, 0, 0);
    }

    /// <summary>Creates a Binary value. The array is kept, not copied: do not change it afterwards.</summary>
    /// <param name="value">The bytes. Must not be null.</param>
    /// <returns>The attribute value.</returns>
    public static CloudEventAttributeValue FromBinary(byte[] value)
    {
        ArgumentNullException.ThrowIfNull(value);
        return new(CloudEventAttributeType.Binary, value, 0, 0);
    }

    /// <summary>Creates a URI value.</summary>
    /// <param name="value">An absolute URI. Must not be null.</param>
    /// <returns>The attribute value.</returns>
    /// <exception cref="ArgumentException">The value is not an absolute URI.</exception>
    public static CloudEventAttributeValue FromUri(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        if (!CloudEventRules.IsAbsoluteUri(value))
        {
            throw new ArgumentException("A CloudEvents URI attribute must be an absolute URI.", nameof(value));
        }

        return new(CloudEventAttributeType.Uri, value, 0, 0);
    }

    /// <summary>Creates a URI-reference value.</summary>
    /// <param name="value">An absolute URI or a relative reference. Must not be null.</param>
    /// <returns>The attribute value.</returns>
    /// <exception cref="ArgumentException">The value is not a URI reference.</exception>
    public static CloudEventAttributeValue FromUriReference(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        if (!CloudEventRules.IsUriReference(value))
        {
            throw new ArgumentException("A CloudEvents URI-reference attribute must be a non-empty URI reference without spaces or control characters.", nameof(value));
        }

        return new(CloudEventAttributeType.UriReference, value, 0, 0);
    }

    /// <summary>Creates a Timestamp value. The offset is kept for writing; equality compares instants.</summary>
    /// <param name="value">The point in time.</param>
    /// <returns>The attribute value.</returns>
    public static CloudEventAttributeValue FromTimestamp(DateTimeOffset value)
        => new(CloudEventAttributeType.Timestamp, null, value.UtcTicks, checked((short)value.Offset.TotalMinutes));

    /// <summary>Gets the Boolean value.</summary>
    /// <returns>The value.</returns>
    /// <exception cref="InvalidOperationException">The value is of another type.</exception>
    public bool AsBoolean()
    {
        EnsureType(CloudEventAttributeType.Boolean);
        return _scalar != 0;
    }

    /// <summary>Gets the Integer value.</summary>
    /// <returns>The value.</returns>
    /// <exception cref="InvalidOperationException">The value is of another type.</exception>
    public int AsInteger()
    {
        EnsureType(CloudEventAttributeType.Integer);
        return (int)_scalar;
    }

    /// <summary>Gets the text of a String, URI or URI-reference value.</summary>
    /// <returns>The text.</returns>
    /// <exception cref="InvalidOperationException">The value is of another type.</exception>
    public string AsString()
    {
        if (Type is not (CloudEventAttributeType.String or CloudEventAttributeType.Uri or CloudEventAttributeType.UriReference))
        {
            throw WrongType(CloudEventAttributeType.String);
        }

        return (string)_reference!;
    }

    /// <summary>Gets the bytes of a Binary value.</summary>
    /// <returns>The bytes.</returns>
    /// <exception cref="InvalidOperationException">The value is of another type.</exception>
    public ReadOnlyMemory<byte> AsBinary()
    {
        EnsureType(CloudEventAttributeType.Binary);
        return (byte[])_reference!;
    }

    /// <summary>Gets the Timestamp value, with the offset it was created with.</summary>
    /// <returns>The value.</returns>
    /// <exception cref="InvalidOperationException">The value is of another type.</exception>
    public DateTimeOffset AsTimestamp()
    {
        EnsureType(CloudEventAttributeType.Timestamp);
        var offset = TimeSpan.FromMinutes(_offsetMinutes);
        return new DateTimeOffset(_scalar + offset.Ticks, offset);
    }

    /// <inheritdoc />
    public bool Equals(CloudEventAttributeValue other)
    {
        if (Type != other.Type)
        {
            return false;
        }

        return Type switch
        {
            CloudEventAttributeType.None => true,
            CloudEventAttributeType.Boolean or CloudEventAttributeType.Integer or CloudEventAttributeType.Timestamp => _scalar == other._scalar,
            CloudEventAttributeType.Binary => ((byte[])_reference!).AsSpan().SequenceEqual((byte[])other._reference!),
            _ => string.Equals((string)_reference!, (string)other._reference!, StringComparison.Ordinal),
        };
    }

    /// <inheritdoc />
    public override bool Equals(object? obj) => obj is CloudEventAttributeValue other && Equals(other);

    /// <inheritdoc />
    public override int GetHashCode() => Type switch
    {
        CloudEventAttributeType.None => 0,
        CloudEventAttributeType.Boolean or CloudEventAttributeType.Integer or CloudEventAttributeType.Timestamp => HashCode.Combine(Type, _scalar),
        CloudEventAttributeType.Binary => HashCode.Combine(Type, ((byte[])_reference!).Length),
        _ => HashCode.Combine(Type, StringComparer.Ordinal.GetHashCode((string)_reference!)),
    };

    /// <summary>The value as text: booleans and integers as JSON writes them, binary as base64, timestamps in the ISO 8601 round-trip form.</summary>
    /// <returns>The text form.</returns>
    public override string ToString() => Type switch
    {
        CloudEventAttributeType.None => string.Empty,
        CloudEventAttributeType.Boolean => _scalar != 0 ? "true" : "false",
        CloudEventAttributeType.Integer => ((int)_scalar).ToString(CultureInfo.InvariantCulture),
        CloudEventAttributeType.Binary => Convert.ToBase64String((byte[])_reference!),
        CloudEventAttributeType.Timestamp => AsTimestamp().ToString("O", CultureInfo.InvariantCulture),
        _ => (string)_reference!,
    };

    /// <summary>Compares two values for equality.</summary>
    /// <param name="left">The first value.</param>
    /// <param name="right">The second value.</param>
    /// <returns><c>true</c> when equal.</returns>
    public static bool operator ==(CloudEventAttributeValue left, CloudEventAttributeValue right) => left.Equals(right);

    /// <summary>Compares two values for inequality.</summary>
    /// <param name="left">The first value.</param>
    /// <param name="right">The second value.</param>
    /// <returns><c>true</c> when not equal.</returns>
    public static bool operator !=(CloudEventAttributeValue left, CloudEventAttributeValue right) => !left.Equals(right);

    internal byte[] BinaryArray => (byte[])_reference!;

    private void EnsureType(CloudEventAttributeType expected)
    {
        if (Type != expected)
        {
            throw WrongType(expected);
        }
    }

    private InvalidOperationException WrongType(CloudEventAttributeType expected)
        => new($"The attribute value is of type {Type}, not {expected}.");
}
