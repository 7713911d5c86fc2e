using System;
using System.Buffers.Text;
using System.Text.Json;
using Missive.Aws.Protocol;
using Missive.Transport;

namespace Missive.Aws.Sqs;

/// <summary>
/// Reads the answer of an SQS batch call (<c>{"Successful": [{"Id", …}], "Failed": [{"Id", "SenderFault", "Code",
/// "Message"}]}</c>) with a <see cref="Utf8JsonReader"/> over the answer's pooled bytes: no document, entry ids parsed
/// from their bytes, and of a successful entry only the members the caller asks for made strings.
/// </summary>
internal static class SqsBatchAnswer
{
    /// <summary>A successful entry: its position in the call, and, when asked for, its message id and digests.</summary>
    public readonly record struct Success(int Index, string? MessageId, string? BodyDigest, string? AttributesDigest);

    /// <summary>
    /// Fills <paramref name="results"/>[start..end) from the answer (entry ids are positions from
    /// <paramref name="start"/>); an entry the answer does not mention is <c>NoAnswer</c>.
    /// </summary>
    /// <param name="response">The answer.</param>
    /// <param name="operation">The operation, for errors (for example <c>SendMessageBatch</c>).</param>
    /// <param name="start">The position of the call's first entry.</param>
    /// <param name="end">The position after the call's last entry.</param>
    /// <param name="results">Where the results go.</param>
    /// <param name="withIds">Whether successful entries' message ids and digests are read (sends), or only their ids (receipts).</param>
    /// <param name="state">What <paramref name="onSuccess"/> needs, passed without a closure.</param>
    /// <param name="onSuccess">Makes the result of a successful entry (it may find a digest that does not match).</param>
    /// <exception cref="MessageTransportException">The answer is not such JSON, or names an entry that was not sent.</exception>
    public static void Read<TState>(AwsResponse response, string operation, int start, int end, BatchEntryResult[] results, bool withIds, TState state, Func<Success, TState, BatchEntryResult> onSuccess)
    {
        Span<bool> answered = stackalloc bool[end - start];
        answered.Clear();
        try
        {
            var reader = new Utf8JsonReader(response.Body.Span);
            if (reader.Read())
            {
                Expect(ref reader, JsonTokenType.StartObject, operation, response);
                while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
                {
                    bool successful = reader.ValueTextEquals("Successful"u8);
                    bool failed = !successful && reader.ValueTextEquals("Failed"u8);
                    reader.Read();
                    if (!(successful || failed) || reader.TokenType != JsonTokenType.StartArray)
                    {
                        reader.Skip(); // another member, or a list that is null
                        continue;
                    }

                    while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
                    {
                        Expect(ref reader, JsonTokenType.StartObject, operation, response);
                        int i = successful
                            ? ReadSuccess(ref reader, operation, start, end, results, withIds, state, onSuccess)
                            : ReadFailure(ref reader, operation, start, end, results);
                        answered[i - start] = true;
                    }
                }

                if (reader.Read())
                {
                    throw new JsonException("More follows the answer's value.");
                }
            }
        }
        catch (JsonException e)
        {
            throw AwsJson.Malformed("SQS " + operation, "a body that is not JSON", response.RequestId, e);
        }
        catch (InvalidOperationException e)
        {
            throw AwsJson.Malformed("SQS " + operation, "a string that is not UTF-8", response.RequestId, e);
        }

        for (int i = 0; i < answered.Length; i++)
        {
            if (!answered[i])
            {
                results[start + i] = NoAnswer(start + i);
            }
        }
    }

    /// <summary>The result of an entry an answer does not mention: SQS may have taken it.</summary>
    public static BatchEntryResult NoAnswer(int index)
        => new(index, null, "NoAnswer", "SQS did not report on this entry: it may have taken it.", false) { Outcome = BatchEntryOutcome.Unknown };

    private static int ReadSuccess<TState>(ref Utf8JsonReader reader, string operation, int start, int end, BatchEntryResult[] results, bool withIds, TState state, Func<Success, TState, BatchEntryResult> onSuccess)
    {
        int index = -1;
        string? messageId = null, bodyDigest = null, attributesDigest = null;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            if (reader.ValueTextEquals("Id"u8))
            {
                reader.Read();
                index = EntryIndex(ref reader, operation, start, end);
            }
            else if (withIds && reader.ValueTextEquals("MessageId"u8))
            {
                reader.Read();
                messageId = StringOrNull(ref reader);
                if (messageId is { Length: > AwsJson.MaxIdLength })
                {
                    throw AwsJson.Malformed("SQS " + operation, $"a MessageId over {AwsJson.MaxIdLength} characters", null);
                }
            }
            else if (withIds && reader.ValueTextEquals("MD5OfMessageBody"u8))
            {
                reader.Read();
                bodyDigest = StringOrNull(ref reader);
            }
            else if (withIds && reader.ValueTextEquals("MD5OfMessageAttributes"u8))
            {
                reader.Read();
                attributesDigest = StringOrNull(ref reader);
            }
            else
            {
                reader.Read();
                reader.Skip();
            }
        }

        int i = Required(index, operation);
        results[i] = onSuccess(new Success(i, messageId, bodyDigest, attributesDigest), state);
        return i;
    }

    private static int ReadFailure(ref Utf8JsonReader reader, string operation, int start, int end, BatchEntryResult[] results)
    {
        int index = -1;
        bool senderFault = false;
        string? code = null, message = null;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            if (reader.ValueTextEquals("Id"u8))
            {
                reader.Read();
                index = EntryIndex(ref reader, operation, start, end);
            }
            else if (reader.ValueTextEquals("SenderFault"u8))
            {
                reader.Read();
                senderFault = reader.TokenType == JsonTokenType.True;
            }
            else if (reader.ValueTextEquals("Code"u8))
            {
                reader.Read();
                code = StringOrNull(ref reader);
            }
            else if (reader.ValueTextEquals("Message"u8))
            {
                reader.Read();
                message = StringOrNull(ref reader);
            }
            else
            {
                reader.Read();
                reader.Skip();
            }
        }

        int i = Required(index, operation);
        results[i] = new BatchEntryResult(i, null, code ?? "Failed", message, senderFault);
        return i;
    }

    /// <summary>The position an entry id names: the ids sent are the entries' offsets in the call, in decimal.</summary>
    private static int EntryIndex(ref Utf8JsonReader reader, string operation, int start, int end)
    {
        if (reader.TokenType == JsonTokenType.String && !reader.ValueIsEscaped && reader.ValueSpan is [>= (byte)'0' and <= (byte)'9', ..]
            && Utf8Parser.TryParse(reader.ValueSpan, out int offset, out int consumed) && consumed == reader.ValueSpan.Length
            && offset >= 0 && start + offset < end)
        {
            return start + offset;
        }

        string id = reader.TokenType == JsonTokenType.String ? reader.GetString()! : reader.TokenType.ToString();
        throw AwsJson.Malformed("SQS " + operation, $"an entry id '{id}' that was not sent", null);
    }

    private static int Required(int index, string operation)
        => index >= 0 ? index : throw AwsJson.Malformed("SQS " + operation, "an entry without an Id", null);

    private static string? StringOrNull(ref Utf8JsonReader reader)
    {
        if (reader.TokenType == JsonTokenType.String)
        {
            return reader.GetString();
        }

        reader.Skip();
        return null;
    }

    private static void Expect(ref Utf8JsonReader reader, JsonTokenType type, string operation, AwsResponse response)
    {
        if (reader.TokenType != type)
        {
            throw AwsJson.Malformed("SQS " + operation, $"JSON that is not a batch answer ({reader.TokenType} where {type} belongs)", response.RequestId);
        }
    }
}
