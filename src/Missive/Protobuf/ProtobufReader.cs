using System;
using System.Runtime.CompilerServices;

namespace Missive.Protobuf;

/// <summary>
/// Reads protobuf wire data from a span (a multi-segment input is made contiguous first, by the
/// serializer). Every length is checked against what remains before anything is sliced or allocated,
/// over-long varints (up to ten bytes) are accepted as protobuf parsers must, and every failure is
/// an <see cref="InvalidEnvelopeException"/> with the byte position.
/// </summary>
internal ref struct ProtobufReader
{
    /// <summary>How deep unknown groups may nest before the input is taken as hostile.</summary>
    private const int MaxGroupDepth = 32;

    private readonly ReadOnlySpan<byte> _source;
    private readonly long _basePosition;
    private int _consumed;

    /// <summary>Creates a reader over <paramref name="source"/>, which starts at <paramref name="basePosition"/> in the whole input.</summary>
    public ProtobufReader(ReadOnlySpan<byte> source, long basePosition)
    {
        _source = source;
        _basePosition = basePosition;
    }

    public readonly bool End => _consumed >= _source.Length;

    /// <summary>Gets the position in the whole input.</summary>
    public readonly long Position => _basePosition + _consumed;

    private readonly int Remaining => _source.Length - _consumed;

    /// <summary>Reads a tag and splits it; field number 0 and wire types 6 and 7 are rejected.</summary>
    public void ReadTag(out int field, out WireType wireType)
    {
        long position = Position;
        ulong tag = ReadVarint();
        if (tag > uint.MaxValue || (tag >> 3) == 0)
        {
            ThrowMalformed("A field tag is invalid (field number 0 or over 32 bits)", position);
        }

        field = (int)(tag >> 3);
        int type = (int)(tag & 7);
        if (type > (int)WireType.Fixed32)
        {
            ThrowMalformed($"Field {field} has wire type {type}, which does not exist", position);
        }

        wireType = (WireType)type;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public ulong ReadVarint()
    {
        if ((uint)_consumed < (uint)_source.Length && _source[_consumed] is var b and < 0x80)
        {
            _consumed++;
            return b;
        }

        return ReadVarintSlow();
    }

    /// <summary>Reads an int32 value: a varint holding a 32-bit value or a sign-extended negative one.</summary>
    public int ReadInt32(string what)
    {
        long position = Position;
        ulong value = ReadVarint();
        if (value > uint.MaxValue && value < 0xFFFF_FFFF_8000_0000)
        {
            ThrowMalformed($"{what} is out of the 32-bit integer range", position);
        }

        return (int)value;
    }

    /// <summary>Reads a length prefix and returns the slice it announces, after checking it fits in what remains.</summary>
    public ReadOnlySpan<byte> ReadLengthDelimited(out long start)
    {
        long position = Position;
        ulong length = ReadVarint();
        if (length > (ulong)Remaining)
        {
            ThrowMalformed($"A length of {length} bytes runs past the end of the input ({Remaining} bytes remain)", position);
        }

        start = Position;
        ReadOnlySpan<byte> slice = _source.Slice(_consumed, (int)length);
        _consumed += (int)length;
        return slice;
    }

    /// <summary>Skips the value of an unknown field of any wire type, groups included.</summary>
    public void Skip(int field, WireType wireType, int depth = 0)
    {
        long position = Position;
        switch (wireType)
        {
            case WireType.Varint:
                ReadVarint();
                break;
            case WireType.Fixed64:
                Advance(8, position);
                break;
            case WireType.Fixed32:
                Advance(4, position);
                break;
            case WireType.LengthDelimited:
                ReadLengthDelimited(out _);
                break;
            case WireType.StartGroup:
                SkipGroup(field, depth, position);
                break;
            default:
                ThrowMalformed($"An end-group tag for field {field} has no matching start", position);
                break;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ulong ReadVarintSlow()
    {
        long position = Position;
        ulong result = 0;
        for (int i = 0; i < ProtobufPrimitives.MaxVarintLength; i++)
        {
            if (End)
            {
                ThrowMalformed("The input ends inside a varint", position);
            }

            byte b = _source[_consumed++];
            result |= (ulong)(b & 0x7F) << (7 * i);
            if (b < 0x80)
            {
                return result;
            }
        }

        ThrowMalformed("A varint is longer than ten bytes", position);
        return 0;
    }

    private void Advance(int count, long position)
    {
        if (Remaining < count)
        {
            ThrowMalformed($"The input ends inside a {count}-byte fixed-width value", position);
        }

        _consumed += count;
    }

    private void SkipGroup(int field, int depth, long position)
    {
        if (depth >= MaxGroupDepth)
        {
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"Unknown groups nest deeper than {MaxGroupDepth} levels", position);
        }

        while (true)
        {
            if (End)
            {
                ThrowMalformed($"The group of field {field} has no end", position);
            }

            ReadTag(out int inner, out WireType wireType);
            if (wireType == WireType.EndGroup)
            {
                if (inner != field)
                {
                    ThrowMalformed($"The group of field {field} ends with the end tag of field {inner}", Position);
                }

                return;
            }

            Skip(inner, wireType, depth + 1);
        }
    }

    public static void ThrowMalformed(string message, long position)
        => ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, message, position);
}
