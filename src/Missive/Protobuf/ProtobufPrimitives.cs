using System;
using System.Numerics;
using System.Runtime.CompilerServices;

namespace Missive.Protobuf;

/// <summary>Stateless protobuf encoding primitives: varint sizes and writes, length-delimited sizes, timestamps.</summary>
internal static class ProtobufPrimitives
{
    /// <summary>The longest varint: 64 bits in 7-bit groups.</summary>
    public const int MaxVarintLength = 10;

    private const long UnixEpochTicks = 621_355_968_000_000_000; // DateTime.UnixEpoch.Ticks

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int VarintSize(ulong value) => ((63 - BitOperations.LeadingZeroCount(value | 1)) / 7) + 1;

    /// <summary>The size of an int32 field value: negative numbers are sign-extended to ten bytes.</summary>
    public static int Int32Size(int value) => value >= 0 ? VarintSize((uint)value) : MaxVarintLength;

    /// <summary>The size of a length-delimited value of <paramref name="length"/> bytes: prefix plus body.</summary>
    public static int LengthDelimitedSize(int length) => VarintSize((uint)length) + length;

    /// <summary>Writes a minimal varint; the span must hold <see cref="VarintSize"/> bytes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int WriteVarint(Span<byte> destination, ulong value)
    {
        int i = 0;
        while (value >= 0x80)
        {
            destination[i++] = (byte)(value | 0x80);
            value >>= 7;
        }

        destination[i++] = (byte)value;
        return i;
    }

    /// <summary>Splits a point in time into protobuf Timestamp seconds and nanoseconds (nanos always 0..999,999,900).</summary>
    public static void ToTimestamp(DateTimeOffset value, out long seconds, out int nanos)
    {
        long ticks = value.UtcTicks - UnixEpochTicks;
        seconds = Math.DivRem(ticks, TimeSpan.TicksPerSecond, out long remainder);
        if (remainder < 0)
        {
            seconds--;
            remainder += TimeSpan.TicksPerSecond;
        }

        nanos = (int)(remainder * 100);
    }

    /// <summary>Joins Timestamp seconds and nanoseconds into a UTC point in time; <c>false</c> when out of range.</summary>
    public static bool TryFromTimestamp(long seconds, int nanos, out DateTimeOffset value)
    {
        value = default;
        const long MinSeconds = -62_135_596_800; // 0001-01-01T00:00:00Z
        const long MaxSeconds = 253_402_300_799; // 9999-12-31T23:59:59Z
        if (seconds < MinSeconds || seconds > MaxSeconds || nanos < 0 || nanos > 999_999_999)
        {
            return false;
        }

        value = new DateTimeOffset(UnixEpochTicks + (seconds * TimeSpan.TicksPerSecond) + (nanos / 100), TimeSpan.Zero);
        return true;
    }

    /// <summary>The size of a Timestamp message body: proto3 leaves zero fields out.</summary>
    public static int TimestampSize(long seconds, int nanos)
        => (seconds != 0 ? 1 + VarintSize((ulong)seconds) : 0) + (nanos != 0 ? 1 + VarintSize((uint)nanos) : 0);
}
