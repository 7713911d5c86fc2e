using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Missive.Buffers;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>Whether a document is a raw CloudEvents envelope, from its first member.</summary>
internal ref partial struct WrapperScan
{
    /// <summary>
    /// Whether an object's content starts with a member whose plain (unescaped) name is a CloudEvents attribute
    /// <see cref="IsCloudEventsMember"/> knows, followed by its colon: a raw envelope, as written by every producer.
    /// </summary>
    private static bool StartsWithCloudEventsMember(ReadOnlySpan<byte> content)
    {
        int quote = JsonWhitespace.Skip(content, 0);
        if (quote < 0 || content[quote] != (byte)'"')
        {
            return false;
        }

        ReadOnlySpan<byte> rest = content[(quote + 1)..];
        int end = rest.IndexOf((byte)'"');
        if (end < 0)
        {
            return false;
        }

        ReadOnlySpan<byte> name = rest[..end];
        int colon = JsonWhitespace.Skip(rest, end + 1);
        if (colon < 0 || rest[colon] != (byte)':')
        {
            return false;
        }

        foreach (byte[] known in CloudEventsNames)
        {
            if (name.SequenceEqual(known))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Tells whether the member name the reader is on is one a CloudEvents envelope has and no wrapper has.</summary>
    private static bool IsCloudEventsMember(ref Utf8JsonReader reader)
    {
        foreach (byte[] known in CloudEventsNames)
        {
            if (reader.ValueTextEquals(known))
            {
                return true;
            }
        }

        return false;
    }
}
