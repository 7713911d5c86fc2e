using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Text;
using System.Text.Json;

namespace Missive.Lambda;

/// <summary>
/// The partial batch response of a Lambda function triggered by SQS (with <c>ReportBatchItemFailures</c> enabled on its
/// event source mapping): <c>{"batchItemFailures":[{"itemIdentifier":"…"}]}</c>. Lambda deletes the other records and
/// makes these visible again (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html).
/// </summary>
public sealed class SqsBatchResponse
{
    internal SqsBatchResponse(IReadOnlyList<SqsBatchItemFailure> failures) => BatchItemFailures = failures;

    /// <summary>Gets the records to deliver again, in the order of the event; empty when every record was handled.</summary>
    public IReadOnlyList<SqsBatchItemFailure> BatchItemFailures { get; }

    /// <summary>Writes the response as Lambda reads it.</summary>
    /// <param name="writer">The writer. Must not be null.</param>
    public void WriteTo(Utf8JsonWriter writer)
    {
        ArgumentNullException.ThrowIfNull(writer);
        writer.WriteStartObject();
        writer.WriteStartArray("batchItemFailures"u8);
        foreach (SqsBatchItemFailure failure in BatchItemFailures)
        {
            writer.WriteStartObject();
            writer.WriteString("itemIdentifier"u8, failure.ItemIdentifier);
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteEndObject();
    }

    /// <summary>Gets the response as UTF-8 JSON, for a function handler that returns a <see cref="Stream"/>.</summary>
    /// <returns>A readable stream at position 0.</returns>
    public MemoryStream ToStream()
    {
        var stream = new MemoryStream();
        using (var writer = new Utf8JsonWriter(stream))
        {
            WriteTo(writer);
        }

        stream.Position = 0;
        return stream;
    }

    /// <summary>Gets the response as JSON text.</summary>
    /// <returns>The JSON.</returns>
    public override string ToString()
    {
        var buffer = new ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            WriteTo(writer);
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }
}
