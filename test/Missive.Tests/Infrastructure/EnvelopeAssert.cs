using System;
using System.Collections.Generic;
using System.Text.Json;

namespace Missive.Tests.Infrastructure;

public static class EnvelopeAssert
{
    private static readonly JsonSerializerOptions MessageComparison = new();

    /// <summary>Asserts two envelopes carry the same CloudEvent: every attribute, every extension (typed), and equal messages.</summary>
    public static void Equal(MessageEnvelope expected, MessageEnvelope actual)
    {
        Assert.Equal(expected.MessageType, actual.MessageType);
        Assert.Equal(expected.Id, actual.Id);
        Assert.Equal(expected.Source, actual.Source);
        Assert.Equal(expected.SpecVersion, actual.SpecVersion);
        Assert.Equal(expected.Type, actual.Type);
        Assert.Equal(expected.Time, actual.Time);
        Assert.Equal(expected.DataContentType, actual.DataContentType);
        Assert.Equal(expected.DataSchema, actual.DataSchema);
        Assert.Equal(expected.Subject, actual.Subject);
        Assert.Equal(Extensions(expected), Extensions(actual));
        Assert.Equal(MessageText(expected.GetMessage()), MessageText(actual.GetMessage()));
    }

    /// <summary>Asserts two batches hold the same CloudEvents in the same order.</summary>
    public static void Equal(IReadOnlyList<MessageEnvelope> expected, IReadOnlyList<MessageEnvelope> actual)
    {
        Assert.Equal(expected.Count, actual.Count);
        for (int i = 0; i < expected.Count; i++)
        {
            Equal(expected[i], actual[i]);
        }
    }

    public static List<KeyValuePair<string, CloudEventAttributeValue>> Extensions(MessageEnvelope envelope)
    {
        var list = new List<KeyValuePair<string, CloudEventAttributeValue>>();
        foreach (KeyValuePair<string, CloudEventAttributeValue> item in envelope.Extensions)
        {
            list.Add(item);
        }

        list.Sort((a, b) => string.CompareOrdinal(a.Key, b.Key));
        return list;
    }

    public static string? MessageText(object? message) => message switch
    {
        null => null,
        byte[] bytes => "bytes:" + Convert.ToHexString(bytes),
        ReadOnlyMemory<byte> memory => "bytes:" + Convert.ToHexString(memory.Span),
        string text => "text:" + text,
        _ => "json:" + JsonSerializer.Serialize(message, message.GetType(), MessageComparison),
    };
}
