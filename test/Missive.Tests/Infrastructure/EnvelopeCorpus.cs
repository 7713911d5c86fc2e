using System;
using System.Collections.Generic;
using Missive.Serialization;

namespace Missive.Tests.Infrastructure;

/// <summary>A wide, deterministic set of envelopes: unicode, escapes, empty and large payloads, every extension type, all optional attributes, binary and text data.</summary>
public static class EnvelopeCorpus
{
    public static readonly string[] TrickyStrings =
    [
        string.Empty,
        "plain ascii",
        "Zoë Martin",
        "日本語のテキスト",
        "emoji 😀 and 𝄞 (surrogate pairs)",
        "quotes \" backslash \\ slash / tab \t newline \n",
        "html <script>alert('x')</script> & + '",
        "control \u0001\u001f and del \u007f",
        "line separators \u2028\u2029",
        new string('x', 5000),
    ];

    /// <summary>Declares the typed extensions the corpus uses, so JSON reads them back with their types.</summary>
    public static SerializationOptions Options(Action<SerializationOptions>? configure = null)
    {
        SerializationOptions options = TestSerializers.Options(configure);
        options.ExtensionAttributeTypes["extbinary"] = CloudEventAttributeType.Binary;
        options.ExtensionAttributeTypes["exttime"] = CloudEventAttributeType.Timestamp;
        options.ExtensionAttributeTypes["exturi"] = CloudEventAttributeType.Uri;
        options.ExtensionAttributeTypes["exturiref"] = CloudEventAttributeType.UriReference;
        return options;
    }

    public static IEnumerable<(string Name, MessageEnvelope Envelope)> All()
    {
        DateTimeOffset time = new DateTimeOffset(2025, 11, 3, 14, 27, 9, TimeSpan.Zero).AddTicks(4418273);
        foreach (int lines in new[] { 0, 1, 10, 100, 1000 })
        {
            yield return ($"order-{lines}-lines", Envelope(Orders.Create(lines), TestSerializers.OrderType, "application/json", time));
        }

        for (int i = 0; i < TrickyStrings.Length; i++)
        {
            string text = TrickyStrings[i];
            yield return ($"order-customer-{i}", Envelope(Orders.Create(2, text), TestSerializers.OrderType, "application/json", time));
            yield return ($"text-{i}", Envelope(text, TestSerializers.TextType, "text/plain", time));

            MessageEnvelope<string> attributes = Envelope("x", TestSerializers.TextType, "text/plain", time);
            if (text.Length > 0)
            {
                attributes.Subject = text;
                attributes.Extensions["extstring"] = CloudEventAttributeValue.FromString(text);
            }

            attributes.Id = "id-" + text;
            yield return ($"attributes-{i}", attributes);
        }

        yield return ("text-as-json-content", Envelope("a JSON string", TestSerializers.TextType, "application/json", time));
        yield return ("binary-empty", Envelope(Array.Empty<byte>(), TestSerializers.BinaryType, "application/octet-stream", time));
        yield return ("binary-one", Envelope(new byte[] { 0xFB }, TestSerializers.BinaryType, "application/octet-stream", time));
        var random = new Random(42);
        byte[] blob = new byte[3000];
        random.NextBytes(blob);
        yield return ("binary-random", Envelope(blob, TestSerializers.BinaryType, "application/octet-stream", time));
        yield return ("memory-random", Envelope<ReadOnlyMemory<byte>>(blob.AsMemory(7, 1000), TestSerializers.MemoryType, "image/png", time));
        yield return ("null-message", Envelope<Order>(null!, TestSerializers.OrderType, "application/json", time));
        yield return ("no-time-no-content-type", Envelope(Orders.Create(1), TestSerializers.OrderType, null, null));

        foreach (TimeSpan offset in new[] { TimeSpan.FromHours(5.5), TimeSpan.FromHours(-8), TimeSpan.FromHours(14) })
        {
            yield return ($"time-offset-{offset.TotalMinutes}", Envelope(Orders.Create(1), TestSerializers.OrderType, "application/json", new DateTimeOffset(2024, 2, 29, 23, 59, 59, offset)));
        }

        yield return ("time-whole-second", Envelope(Orders.Create(1), TestSerializers.OrderType, "application/json", new DateTimeOffset(2024, 1, 1, 0, 0, 0, TimeSpan.Zero)));
        yield return ("time-1-tick", Envelope(Orders.Create(1), TestSerializers.OrderType, "application/json", new DateTimeOffset(2024, 1, 1, 0, 0, 0, TimeSpan.Zero).AddTicks(1)));

        MessageEnvelope<Order> all = Envelope(Orders.Create(3), TestSerializers.OrderType, "application/json; charset=utf-8", time);
        all.DataSchema = "https://schemas.example.com/orders/v1?x=1&y=2";
        all.Subject = "orders/ORD-1";
        all.Source = "/AmazonECS/orders-prod/0f3c9a2b";
        all.Extensions["extbool"] = CloudEventAttributeValue.FromBoolean(true);
        all.Extensions["extfalse"] = CloudEventAttributeValue.FromBoolean(false);
        all.Extensions["extint"] = CloudEventAttributeValue.FromInteger(int.MinValue);
        all.Extensions["extintmax"] = CloudEventAttributeValue.FromInteger(int.MaxValue);
        all.Extensions["extstring"] = CloudEventAttributeValue.FromString("text with \"quotes\" and ünïcödé");
        all.Extensions["extbinary"] = CloudEventAttributeValue.FromBinary([0xFB, 0xFF, 0xBF, 0x00, 0x3E]);
        all.Extensions["exttime"] = CloudEventAttributeValue.FromTimestamp(new DateTimeOffset(2023, 3, 31, 15, 12, 0, TimeSpan.FromHours(2)).AddTicks(5));
        all.Extensions["exturi"] = CloudEventAttributeValue.FromUri("https://cloudevents.io/a?b=c&d=e");
        all.Extensions["exturiref"] = CloudEventAttributeValue.FromUriReference("//authority/path#frag");
        all.Extensions["traceparent"] = CloudEventAttributeValue.FromString("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        yield return ("every-attribute-and-extension-type", all);
    }

    public static TheoryData<string> Names()
    {
        var data = new TheoryData<string>();
        foreach ((string name, _) in All())
        {
            data.Add(name);
        }

        return data;
    }

    public static MessageEnvelope Get(string name)
    {
        foreach ((string n, MessageEnvelope envelope) in All())
        {
            if (n == name)
            {
                return envelope;
            }
        }

        throw new KeyNotFoundException(name);
    }

    private static MessageEnvelope<T> Envelope<T>(T message, string type, string? contentType, DateTimeOffset? time) => new()
    {
        Id = "5f8b2c3e-9a41-4d7e-b6c2-0e3f1a7d9b24",
        Source = "/aws/messaging",
        Type = type,
        Time = time,
        DataContentType = contentType,
        Message = message,
    };
}
