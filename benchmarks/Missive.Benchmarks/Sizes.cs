using System.Globalization;
using System.Text;

namespace Missive.Benchmarks;

/// <summary>Envelope sizes per format and payload, computed by the serializers themselves.</summary>
public static class Sizes
{
    public static string ToMarkdown()
    {
        var text = new StringBuilder();
        text.AppendLine("| ItemCount | JSON | protobuf | protobuf / JSON | protobuf as base64 (SQS body) | bare JSON payload |");
        text.AppendLine("|---:|---:|---:|---:|---:|---:|");
        foreach (int items in new[] { 1, 10, 100, 1000 })
        {
            MessageEnvelope<OrderPlaced> envelope = Payloads.Envelope(Payloads.Order(items), Payloads.OrderType);
            envelope.Extensions["traceparent"] = CloudEventAttributeValue.FromString("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
            int json = Serialization.EnvelopeSerializerExtensions.SerializeToArray(Setup.Utf8, envelope).Length;
            int protobuf = Serialization.EnvelopeSerializerExtensions.SerializeToArray(Setup.Protobuf, envelope).Length;
            int base64 = Serialization.EnvelopeSerializerExtensions.SerializeToString(Setup.Protobuf, envelope).Length;
            int bare = System.Text.Json.JsonSerializer.SerializeToUtf8Bytes(envelope.Message, BenchJsonContext.Default.OrderPlaced).Length;
            text.AppendLine(CultureInfo.InvariantCulture, $"| {items} | {json:N0} B | {protobuf:N0} B | {(double)protobuf / json:0.000} | {base64:N0} B | {bare:N0} B |");
        }

        return text.ToString();
    }
}
