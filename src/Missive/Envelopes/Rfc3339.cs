using System;
using System.Text;

namespace Missive;

/// <summary>
/// Strict RFC 3339 <c>date-time</c> parsing over UTF-8, shared by every reader so all formats agree
/// on which timestamps are valid.
/// </summary>
/// <remarks>
/// Accepted: <c>YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)</c>, <c>T</c>/<c>Z</c> in either case, any
/// number of fraction digits (kept to 100 ns, the rest truncated). Rejected: a missing seconds
/// field, an hour-only offset, offsets beyond ±23:59, and leap seconds (<c>:60</c>), which
/// <see cref="DateTimeOffset"/> cannot hold. An offset beyond ±14:00 (valid in RFC 3339 but not
/// representable by <see cref="DateTimeOffset"/>) gives the same instant with a zero offset.
/// </remarks>
internal static class Rfc3339
{
    /// <summary>The longest text worth parsing: 19 fixed characters, a long fraction, an offset.</summary>
    public const int MaxLength = 64;

    /// <summary>The outcome of parsing a timestamp.</summary>
    public enum Result
    {
        /// <summary>A valid RFC 3339 date-time.</summary>
        Valid,

        /// <summary>Not an RFC 3339 date-time.</summary>
        Invalid,

        /// <summary>A well-formed date-time outside what <see cref="DateTimeOffset"/> holds (years 1 to 9999, in UTC and locally).</summary>
        OutOfRange,
    }

    public static bool TryParse(ReadOnlySpan<byte> text, out DateTimeOffset value) => Parse(text, out value) == Result.Valid;

    /// <summary>Parses a UTF-8 timestamp, telling a malformed one from one out of range.</summary>
    public static Result Parse(ReadOnlySpan<byte> text, out DateTimeOffset value)
    {
        value = default;
        if (text.Length < 20 || text.Length > MaxLength)
        {
            return Result.Invalid;
        }

        if (!TryDigits(text, 0, 4, out int year) || text[4] != '-'
            || !TryDigits(text, 5, 2, out int month) || text[7] != '-'
            || !TryDigits(text, 8, 2, out int day) || (text[10] | 0x20) != 't'
            || !TryDigits(text, 11, 2, out int hour) || text[13] != ':'
            || !TryDigits(text, 14, 2, out int minute) || text[16] != ':'
            || !TryDigits(text, 17, 2, out int second))
        {
            return Result.Invalid;
        }

        int i = 19;
        long fractionTicks = 0;
        if (text[i] == '.')
        {
            i++;
            int start = i;
            long scale = TimeSpan.TicksPerSecond / 10;
            while (i < text.Length && char.IsAsciiDigit((char)text[i]))
            {
                fractionTicks += (text[i] - '0') * scale;
                scale /= 10;
                i++;
            }

            if (i == start)
            {
                return Result.Invalid;
            }
        }

        if (i >= text.Length)
        {
            return Result.Invalid;
        }

        int offsetMinutes;
        if ((text[i] | 0x20) == 'z')
        {
            offsetMinutes = 0;
            i++;
        }
        else if (text[i] is (byte)'+' or (byte)'-')
        {
            if (text.Length - i != 6 || !TryDigits(text, i + 1, 2, out int offsetHours) || text[i + 3] != ':'
                || !TryDigits(text, i + 4, 2, out int offsetMins) || offsetHours > 23 || offsetMins > 59)
            {
                return Result.Invalid;
            }

            offsetMinutes = (offsetHours * 60) + offsetMins;
            if (text[i] == '-')
            {
                offsetMinutes = -offsetMinutes;
            }

            i += 6;
        }
        else
        {
            return Result.Invalid;
        }

        if (i != text.Length || year < 1 || month is < 1 or > 12 || hour > 23 || minute > 59 || second > 59
            || day < 1 || day > DateTime.DaysInMonth(year, month))
        {
            return Result.Invalid;
        }

        long localTicks = new DateTime(year, month, day, hour, minute, second, DateTimeKind.Unspecified).Ticks + fractionTicks;
        long utcTicks = localTicks - (offsetMinutes * TimeSpan.TicksPerMinute);
        if (utcTicks < DateTime.MinValue.Ticks || utcTicks > DateTime.MaxValue.Ticks)
        {
            return Result.OutOfRange;
        }

        if (Math.Abs(offsetMinutes) > 14 * 60)
        {
            value = new DateTimeOffset(utcTicks, TimeSpan.Zero);
            return Result.Valid;
        }

        if (localTicks < DateTime.MinValue.Ticks || localTicks > DateTime.MaxValue.Ticks)
        {
            return Result.OutOfRange;
        }

        value = new DateTimeOffset(localTicks, TimeSpan.FromMinutes(offsetMinutes));
        return Result.Valid;
    }

    public static bool TryParse(ReadOnlySpan<char> text, out DateTimeOffset value) => Parse(text, out value) == Result.Valid;

    /// <summary>Parses a UTF-16 timestamp by transcoding it on the stack.</summary>
    public static Result Parse(ReadOnlySpan<char> text, out DateTimeOffset value)
    {
        value = default;
        if (text.Length > MaxLength)
        {
            return Result.Invalid;
        }

        Span<byte> utf8 = stackalloc byte[MaxLength * 3];
        if (Encoding.UTF8.GetByteCount(text) > utf8.Length)
        {
            return Result.Invalid;
        }

        int length = Encoding.UTF8.GetBytes(text, utf8);
        return Parse(utf8[..length], out value);
    }

    /// <summary>Throws the reason-named error for a timestamp that did not parse.</summary>
    public static void ThrowFor(Result result, string attribute, long position)
    {
        if (result == Result.OutOfRange)
        {
            ThrowHelper.ThrowTimestampOutOfRange(attribute, position);
        }

        ThrowHelper.ThrowInvalidTimestamp(attribute, position);
    }

    private static bool TryDigits(ReadOnlySpan<byte> text, int start, int count, out int value)
    {
        value = 0;
        for (int i = start; i < start + count; i++)
        {
            int digit = text[i] - '0';
            if ((uint)digit > 9)
            {
                return false;
            }

            value = (value * 10) + digit;
        }

        return true;
    }
}
