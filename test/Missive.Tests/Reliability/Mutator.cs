using System;
using System.Collections.Generic;
using System.Text;

namespace Missive.Tests.Reliability;

/// <summary>
/// Deterministic mutations of valid inputs: each input is a pure function of (corpus, seed), so a
/// failure replays from its seed alone.
/// </summary>
public static class Mutator
{
    private static readonly string[] JsonFragments =
    [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "null", "true", "1e309", "-0", "123456789012345678901234567890",
        "\"id\":\"x\"", "\"type\":\"Orders.OrderPlaced\"", "\"data\":{}", "\"data_base64\":\"!!\"", "\"specversion\":\"0.3\"",
        "\"ext\":1.5", "\"ext\":[]", "\\ud800", "\\udc00", "\\u0000", "\u00e9", "\ud83d\ude00", "\"time\":\"2018-02-30T00:00:00Z\"",
    ];

    public static byte[] Mutate(IReadOnlyList<byte[]> corpus, int seed)
    {
        var random = new Random(seed);
        byte[] input = corpus[random.Next(corpus.Count)];
        int rounds = 1 + random.Next(3);
        for (int i = 0; i < rounds; i++)
        {
            input = MutateOnce(input, random);
        }

        return input;
    }

    private static byte[] MutateOnce(byte[] input, Random random)
    {
        var bytes = new List<byte>(input);
        int at = bytes.Count == 0 ? 0 : random.Next(bytes.Count);
        switch (random.Next(13))
        {
            case 0: // flip bits
                if (bytes.Count > 0)
                {
                    bytes[at] ^= (byte)(1 << random.Next(8));
                }

                break;
            case 1: // random byte
                if (bytes.Count > 0)
                {
                    bytes[at] = (byte)random.Next(256);
                }

                break;
            case 2: // truncate
                bytes.RemoveRange(at, bytes.Count - at);
                break;
            case 3: // delete a run
                bytes.RemoveRange(at, Math.Min(bytes.Count - at, 1 + random.Next(16)));
                break;
            case 4: // insert random bytes
                for (int i = random.Next(1, 8); i > 0; i--)
                {
                    bytes.Insert(at, (byte)random.Next(256));
                }

                break;
            case 5: // duplicate a run (duplicate properties, repeated fields)
                int length = Math.Min(bytes.Count - at, 1 + random.Next(64));
                bytes.InsertRange(at, bytes.GetRange(at, length));
                break;
            case 6: // JSON fragment
                bytes.InsertRange(at, Encoding.UTF8.GetBytes(JsonFragments[random.Next(JsonFragments.Length)]));
                break;
            case 7: // deep nesting
                int depth = random.Next(50, 3000);
                bytes.InsertRange(at, Encoding.UTF8.GetBytes(new string(random.Next(2) == 0 ? '[' : '{', depth)));
                break;
            case 8: // invalid UTF-8 and surrogate halves encoded as UTF-8
                byte[][] bad = [[0xC3], [0xED, 0xA0, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFF], [0xC0, 0xAF]];
                bytes.InsertRange(at, bad[random.Next(bad.Length)]);
                break;
            case 9: // length-prefix inflation: a byte that looks like a protobuf length becomes huge
                if (bytes.Count > 1)
                {
                    bytes[at] = 0xFF;
                    bytes.InsertRange(Math.Min(at + 1, bytes.Count), [0xFF, 0xFF, 0xFF, 0x0F]);
                }

                break;
            case 10: // varint stretching: pad a byte into an over-long varint
                if (bytes.Count > 0 && bytes[at] < 0x80)
                {
                    byte value = bytes[at];
                    bytes[at] = (byte)(value | 0x80);
                    bytes.Insert(at + 1, 0x80);
                    bytes.Insert(at + 2, 0x00);
                }

                break;
            case 11: // huge number
                bytes.InsertRange(at, Encoding.UTF8.GetBytes(random.Next(2) == 0 ? "99999999999999999999999999999999" : "-1e400"));
                break;
            default: // swap two bytes
                if (bytes.Count > 1)
                {
                    int other = random.Next(bytes.Count);
                    (bytes[at], bytes[other]) = (bytes[other], bytes[at]);
                }

                break;
        }

        return bytes.ToArray();
    }
}
