using System;
using System.Collections.Generic;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;
using System.Xml;
using Missive.Aws.Protocol;
using Missive.Transport;

namespace Missive.Aws.Sns;

/// <summary>
/// Amazon SNS over its Query protocol (https://docs.aws.amazon.com/sns/latest/api/): <c>POST /</c> with a
/// form body (<c>Action=Publish&amp;Version=2010-03-31&amp;…</c>, message attributes as
/// <c>MessageAttributes.entry.N.Name</c> / <c>.Value.DataType</c> / <c>.Value.StringValue</c> / <c>.Value.BinaryValue</c>)
/// and XML answers. Topics are named by ARN; a name is looked up in the configured <c>TopicArns</c>.
/// </summary>
internal sealed class SnsClient
{
    private static readonly AwsContentType ContentType = new("application/x-www-form-urlencoded; charset=utf-8");
    private const string ApiVersion = "2010-03-31";

    /// <summary>The entry ids of a batch call: their positions in it.</summary>
    private static readonly string[] EntryIds = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

    private static ReadOnlySpan<byte> EntriesList => "PublishBatchRequestEntries.member."u8;

    private readonly AwsServiceClient _service;
    private readonly BatchLimits _publishLimits;
    private readonly IReadOnlyDictionary<string, string> _topicArns;

    public SnsClient(AwsServiceClient service, IReadOnlyDictionary<string, string> topicArns, BatchLimits publishLimits)
    {
        _publishLimits = publishLimits;
        _service = service;
        _topicArns = topicArns;
    }

    /// <summary>A topic as configured and as resolved, for errors.</summary>
    private static string Describe(string configured, string arn)
        => string.Equals(configured, arn, StringComparison.Ordinal) ? $"topic {arn}" : $"topic '{configured}' ({arn})";

    /// <summary>Gets a topic's ARN: an ARN as given, or the configured ARN of a name.</summary>
    /// <exception cref="MessageTransportException">A name with no configured ARN.</exception>
    public string GetTopicArn(string topic)
    {
        ArgumentException.ThrowIfNullOrEmpty(topic);
        if (topic.StartsWith("arn:", StringComparison.Ordinal))
        {
            return topic;
        }

        return _topicArns.TryGetValue(topic, out string? arn)
            ? arn
            : throw new MessageTransportException($"The SNS topic '{topic}' is named without an ARN: SNS needs the topic ARN. Configure it as TopicArns:{topic} in the Missive.Aws options, or name the topic by its ARN in AddSnsPublisher.")
            {
                ErrorCode = "TopicArnNotConfigured",
            };
    }

    /// <summary>Reads whether a topic is FIFO and deduplicates by content (<c>GetTopicAttributes</c>); fails when it does not exist.</summary>
    public async Task<(bool Fifo, bool ContentBasedDeduplication)> GetFifoAttributesAsync(string topic, CancellationToken cancellationToken)
    {
        using var form = new QueryForm("GetTopicAttributes", ApiVersion);
        string topicArn = GetTopicArn(topic);
        form.Add("TopicArn", topicArn);
        using AwsResponse response = await _service.PostAsync("GetTopicAttributes", ContentType, null, form.WrittenMemory, TimeSpan.Zero, AwsAnswer.DefaultLimit, cancellationToken, resource: Describe(topic, topicArn)).ConfigureAwait(false);
        var read = new AttributeRead();
        ReadXml(response, "GetTopicAttributes", ref read, static (ref XmlScan scan, ref AttributeRead read) =>
        {
            if (scan.LocalName.SequenceEqual("key"u8))
            {
                read.Key = scan.ReadText();
                return true;
            }

            if (scan.LocalName.SequenceEqual("value"u8))
            {
                string? value = scan.ReadText();
                if (read.Key == "FifoTopic")
                {
                    read.Fifo = value == "true";
                }
                else if (read.Key == "ContentBasedDeduplication")
                {
                    read.ContentBasedDeduplication = value == "true";
                }

                return true;
            }

            return false;
        });
        return (read.Fifo, read.ContentBasedDeduplication);
    }

    public async Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken)
    {
        using var form = new QueryForm("Publish", ApiVersion);
        string topicArn = GetTopicArn(request.TopicArn);
        form.Add("TopicArn", topicArn);
        AddMessage(form, request);
        using AwsResponse response = await _service.PostAsync("Publish", ContentType, null, form.WrittenMemory, TimeSpan.Zero, AwsAnswer.DefaultLimit, cancellationToken, resource: Describe(request.TopicArn, topicArn)).ConfigureAwait(false);
        string? messageId = null;
        ReadXml(response, "Publish", ref messageId, static (ref XmlScan scan, ref string? messageId) =>
        {
            if (scan.LocalName.SequenceEqual("MessageId"u8))
            {
                messageId = scan.ReadText();
                return true;
            }

            return false;
        });
        return messageId is null ? throw AwsJson.Malformed("SNS Publish", "no MessageId", response.RequestId)
            : messageId.Length > AwsJson.MaxIdLength ? throw AwsJson.Malformed("SNS Publish", $"a MessageId over {AwsJson.MaxIdLength} characters", response.RequestId)
            : messageId;
    }

    /// <summary>Publishes the requests of one topic in calls within SNS's batch limits (<see cref="BatchCalls.SnsPublish"/>); results in request order.</summary>
    public async Task<BatchEntryResult[]> PublishBatchAsync(string topic, IReadOnlyList<(int Index, SnsPublishRequest Request)> requests, CancellationToken cancellationToken)
    {
        string topicArn = GetTopicArn(topic);
        BatchEntryResult[] results = await BatchCalls.CallEachAsync(
            requests,
            _publishLimits,
            static entry => entry.Request.ComputeSize(),
            FifoRule.IsFifo(topicArn) ? static entry => entry.Request.MessageGroupId : null,
            $"SNS PublishBatch to the topic '{topicArn}'",
            (list, start, end, chunk, ct) => PublishBatchCallAsync(topicArn, list, start, end, chunk, ct),
            cancellationToken).ConfigureAwait(false);
        for (int i = 0; i < results.Length; i++)
        {
            results[i] = results[i] with { Index = requests[i].Index };
        }

        return results;
    }

    /// <summary>One <c>PublishBatch</c> call over <paramref name="requests"/>[start..end).</summary>
    private async Task PublishBatchCallAsync(string topicArn, IReadOnlyList<(int Index, SnsPublishRequest Request)> requests, int start, int end, BatchEntryResult[] results, CancellationToken cancellationToken)
    {
        using var form = new QueryForm("PublishBatch", ApiVersion);
        form.Add("TopicArn", topicArn);
        for (int i = start; i < end; i++)
        {
            form.AddMember(EntriesList, i - start + 1, "Id"u8, EntryIds[i - start]);
            AddMessage(form, requests[i].Request, member: i - start + 1);
        }

        using AwsResponse response = await _service.PostAsync("PublishBatch", ContentType, null, form.WrittenMemory, TimeSpan.Zero, AwsAnswer.DefaultLimit, cancellationToken, resource: $"topic {topicArn}").ConfigureAwait(false);
        ReadBatchAnswer(response, start, end, results);
    }

    /// <summary>The message's fields: of the request itself (<paramref name="member"/> 0, <c>Publish</c>), or of entry <paramref name="member"/> of a <c>PublishBatch</c>.</summary>
    private static void AddMessage(QueryForm form, SnsPublishRequest request, int member = 0)
    {
        form.AddMember(EntriesList, member, "Message"u8, request.Message);
        form.AddMember(EntriesList, member, "Subject"u8, request.Subject);
        form.AddMember(EntriesList, member, "MessageGroupId"u8, request.MessageGroupId);
        form.AddMember(EntriesList, member, "MessageDeduplicationId"u8, request.MessageDeduplicationId);
        if (request.MessageAttributes.Count == 0)
        {
            return;
        }

        string prefix = member == 0 ? string.Empty : $"PublishBatchRequestEntries.member.{member}.";
        int n = 0;
        foreach (KeyValuePair<string, MessageAttributeValue> attribute in request.MessageAttributes)
        {
            string entry = $"{prefix}MessageAttributes.entry.{++n}.";
            form.Add(entry + "Name", attribute.Key);
            form.Add(entry + "Value.DataType", attribute.Value.DataType);
            if (attribute.Value.IsBinary)
            {
                form.Add(entry + "Value.BinaryValue", Convert.ToBase64String(attribute.Value.BinaryValue.Span));
            }
            else
            {
                form.Add(entry + "Value.StringValue", attribute.Value.StringValue ?? string.Empty);
            }
        }
    }

    /// <summary>Reads a PublishBatch answer: <c>Successful/member</c> (Id, MessageId) and <c>Failed/member</c> (Id, Code, Message, SenderFault).</summary>
    private static void ReadBatchAnswer(AwsResponse response, int start, int end, BatchEntryResult[] results)
    {
        var read = new BatchRead(response, start, end, results);
        ReadXml(response, "PublishBatch", ref read, static (ref XmlScan scan, ref BatchRead read) =>
        {
            ReadOnlySpan<byte> name = scan.LocalName;
            if (name.SequenceEqual("Successful"u8) || name.SequenceEqual("Failed"u8))
            {
                read.Finish();
                read.Successful = name.SequenceEqual("Successful"u8);
                read.InList = true;
                return false;
            }

            if (name.SequenceEqual("member"u8) && read.InList)
            {
                read.Finish();
                read.Current = new Entry { Successful = read.Successful };
                return false;
            }

            if (name.SequenceEqual("Id"u8))
            {
                read.Current.Id = scan.ReadText();
            }
            else if (name.SequenceEqual("MessageId"u8))
            {
                read.Current.MessageId = scan.ReadText();
            }
            else if (name.SequenceEqual("Code"u8))
            {
                read.Current.Code = scan.ReadText();
            }
            else if (name.SequenceEqual("Message"u8))
            {
                read.Current.Message = scan.ReadText();
            }
            else if (name.SequenceEqual("SenderFault"u8))
            {
                read.Current.SenderFault = scan.ReadText() == "true";
            }
            else
            {
                return false;
            }

            return true;
        });
        read.Finish();
        for (int i = start; i < end; i++)
        {
            if (!read.Answered(i))
            {
                results[i] = new BatchEntryResult(i, null, "NoAnswer", "SNS did not report on this entry.", false);
            }
        }
    }

    /// <summary>Walks the answer's elements (see <see cref="AwsXml.Walk"/>); a body that is not XML is a transport error.</summary>
    private static void ReadXml<TState>(AwsResponse response, string operation, ref TState state, AwsXml.ElementHandler<TState> onElement)
    {
        try
        {
            AwsXml.Walk(response.Body.Span, ref state, onElement);
        }
        catch (XmlException e)
        {
            throw AwsJson.Malformed($"SNS {operation}", "a body that is not XML (or not UTF-8)", response.RequestId, e);
        }
    }

    /// <summary>The FIFO attributes of a <c>GetTopicAttributes</c> answer, read from its key and value pairs.</summary>
    private struct AttributeRead
    {
        public string? Key;
        public bool Fifo;
        public bool ContentBasedDeduplication;
    }

    /// <summary>What a PublishBatch answer's reading has reached: the list it is in, the member being read, the entries answered.</summary>
    private struct BatchRead(AwsResponse response, int start, int end, BatchEntryResult[] results)
    {
        private int _answered; // a bit per entry of the call (at most 10)

        public bool InList;
        public bool Successful;
        public Entry Current;

        public readonly bool Answered(int i) => (_answered & (1 << (i - start))) != 0;

        /// <summary>Puts the member just read, if it names an entry of the call not answered yet, in its place.</summary>
        public void Finish()
        {
            if (Current.Id is { } id && int.TryParse(id, NumberStyles.None, CultureInfo.InvariantCulture, out int offset) && offset < end - start && !Answered(start + offset))
            {
                int i = start + offset;
                results[i] = Current.Successful
                    ? BatchEntryResult.Success(i, Current.MessageId is { Length: > AwsJson.MaxIdLength } ? throw AwsJson.Malformed("SNS PublishBatch", $"a MessageId over {AwsJson.MaxIdLength} characters", response.RequestId) : Current.MessageId)
                    : new BatchEntryResult(i, null, Current.Code ?? "Failed", Current.Message, Current.SenderFault);
                _answered |= 1 << offset;
            }

            Current = default;
        }
    }

    /// <summary>One <c>member</c> of a PublishBatch answer, as it is read.</summary>
    private struct Entry
    {
        public bool Successful;
        public string? Id;
        public string? MessageId;
        public string? Code;
        public string? Message;
        public bool SenderFault;
    }
}
