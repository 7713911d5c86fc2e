using System;

namespace Missive;

/// <summary>
/// An SQS or SNS message attribute: a data type (<c>String</c>, <c>Number</c>, <c>Binary</c>, SNS's
/// <c>String.Array</c>, optionally with a custom label such as <c>Number.int</c>) and a value.
/// </summary>
public sealed class MessageAttributeValue
{
    /// <summary>Creates a String attribute.</summary>
    /// <param name="value">The value. Must not be null.</param>
    /// <returns>The attribute.</returns>
    public static MessageAttributeValue FromString(string value) => new() { DataType = "String", StringValue = value ?? throw new ArgumentNullException(nameof(value)) };

    /// <summary>Creates a Number attribute (sent as a string, as SQS and SNS do).</summary>
    /// <param name="value">The number in invariant text form. Must not be null.</param>
    /// <returns>The attribute.</returns>
    public static MessageAttributeValue FromNumber(string value) => new() { DataType = "Number", StringValue = value ?? throw new ArgumentNullException(nameof(value)) };

    /// <summary>Creates a Binary attribute.</summary>
    /// <param name="value">The bytes.</param>
    /// <returns>The attribute.</returns>
    public static MessageAttributeValue FromBinary(ReadOnlyMemory<byte> value) => new() { DataType = "Binary", BinaryValue = value };

    /// <summary>Gets or sets the data type: <c>String</c>, <c>Number</c> or <c>Binary</c>, optionally followed by <c>.label</c>.</summary>
    public string DataType { get; init; } = "String";

    /// <summary>Gets or sets the value of a String or Number attribute.</summary>
    public string? StringValue { get; init; }

    /// <summary>Gets or sets the value of a Binary attribute.</summary>
    public ReadOnlyMemory<byte> BinaryValue { get; init; }

    /// <summary>Gets whether the attribute is binary.</summary>
    public bool IsBinary => DataType.StartsWith("Binary", StringComparison.Ordinal);
}
