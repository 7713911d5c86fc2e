using System;
using System.Collections.Generic;
using System.Text.Json;
using Missive.Lexing;

namespace Missive.Transport;

/// <summary>
/// Reads the metadata of an EventBridge event delivered to SQS by a rule
/// (https://docs.aws.amazon.com/eventbridge/latest/ref/overiew-event-structure.html): id,
/// detail-type, source, account, region, time and resources.
/// </summary>
internal static class EventBridgeEventReader
{
    public static EventBridgeMetadata ReadMetadata(ReadOnlySpan<byte> document, in WrapperMembers members, JsonReaderOptions options, KnownStrings strings)
    {
        List<string>? resources = null;
        if (members.Resources.TokenType == JsonTokenType.StartArray && members.Resources.Length > 2) // not absent, not []
        {
            var reader = new Utf8JsonReader(members.Resources.ValueIn(document), options);
            reader.Read();
            while (reader.Read() && reader.TokenType == JsonTokenType.String)
            {
                (resources ??= []).Add(reader.GetString()!);
            }
        }

        return new EventBridgeMetadata
        {
            EventId = WrapperJson.StringOf(document, members.Id, options) ?? string.Empty,
            DetailType = WrapperJson.RecurringStringOf(document, members.DetailType, options, strings) ?? string.Empty,
            Source = WrapperJson.RecurringStringOf(document, members.Source, options, strings) ?? string.Empty,
            Account = WrapperJson.RecurringStringOf(document, members.Account, options, strings),
            Region = WrapperJson.RecurringStringOf(document, members.Region, options, strings),
            Time = WrapperJson.TimeOf(document, members.Time),
            Resources = resources ?? (IReadOnlyList<string>)[],
        };
    }
}
