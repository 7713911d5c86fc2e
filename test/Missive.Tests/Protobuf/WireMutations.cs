using System;
using System.Collections.Generic;

namespace Missive.Tests.Protobuf;

/// <summary>Rewrites valid protobuf bytes into equivalent, non-canonical forms a parser must still accept.</summary>
public static class WireMutations
{
    /// <summary>Appends one unknown field of every wire type, a nested group among them.</summary>
    public static byte[] WithUnknownFields(byte[] message)
    {
        var bytes = new List<byte>(message);
        bytes.AddRange([(9 << 3) | 0, 0x96, 0x01]);                                 // field 9 varint 150
        bytes.AddRange([(10 << 3) | 1, 1, 2, 3, 4, 5, 6, 7, 8]);                    // field 10 fixed64
        bytes.AddRange([(11 << 3) | 2, 3, 0xFF, 0x00, 0x7F]);                       // field 11 length-delimited
        bytes.AddRange([(12 << 3) | 5, 9, 9, 9, 9]);                                // field 12 fixed32
        bytes.AddRange([(13 << 3) | 3, (14 << 3) | 0, 1, (15 << 3) | 3, (15 << 3) | 4, (13 << 3) | 4]); // group 13 holding a varint and an empty group 15
        bytes.InsertRange(0, [0x98, 0x06, 0x00]);                                   // field 99 (two-byte tag 792) varint 0, before everything
        return bytes.ToArray();
    }

    /// <summary>
    /// Re-encodes the top-level fields with over-long varints: every tag as two bytes, every varint
    /// value and length prefix padded to ten bytes where it fits. Nested messages are left as they are.
    /// </summary>
    public static byte[] Stretch(byte[] message)
    {
        var output = new List<byte>(message.Length * 2);
        int i = 0;
        while (i < message.Length)
        {
            ulong tag = ReadVarint(message, ref i);
            WritePadded(output, tag, 2);
            switch ((int)(tag & 7))
            {
                case 0:
                    WritePadded(output, ReadVarint(message, ref i), 10);
                    break;
                case 1:
                    output.AddRange(message.AsSpan(i, 8).ToArray());
                    i += 8;
                    break;
                case 2:
                    int length = (int)ReadVarint(message, ref i);
                    WritePadded(output, (ulong)length, 5);
                    output.AddRange(message.AsSpan(i, length).ToArray());
                    i += length;
                    break;
                case 5:
                    output.AddRange(message.AsSpan(i, 4).ToArray());
                    i += 4;
                    break;
                default: // groups: copy the rest verbatim
                    output.AddRange(message.AsSpan(i).ToArray());
                    i = message.Length;
                    break;
            }
        }

        return output.ToArray();
    }

    private static ulong ReadVarint(byte[] data, ref int i)
    {
        ulong result = 0;
        for (int shift = 0; ; shift += 7)
        {
            byte b = data[i++];
            result |= (ulong)(b & 0x7F) << shift;
            if (b < 0x80)
            {
                return result;
            }
        }
    }

    /// <summary>Writes a varint in at least <paramref name="length"/> bytes (continuation bits on zero groups).</summary>
    private static void WritePadded(List<byte> output, ulong value, int length)
    {
        int written = 0;
        do
        {
            byte b = (byte)(value & 0x7F);
            value >>= 7;
            written++;
            bool more = value != 0 || written < length;
            output.Add(more ? (byte)(b | 0x80) : b);
            if (!more)
            {
                break;
            }
        }
        while (written < 10);
    }
}
