using System;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;

namespace Missive.Serialization;

/// <summary>Source-generated metadata for the few values the DOM-based serializer builds nodes from, and for the JSON DOM types, which messages may be of whatever context the application gives.</summary>
[JsonSerializable(typeof(byte[]))]
[JsonSerializable(typeof(DateTimeOffset))]
[JsonSerializable(typeof(string))]
[JsonSerializable(typeof(JsonElement))]
[JsonSerializable(typeof(JsonDocument))]
[JsonSerializable(typeof(JsonNode))]
[JsonSerializable(typeof(JsonObject))]
[JsonSerializable(typeof(JsonArray))]
[JsonSerializable(typeof(JsonValue))]
internal sealed partial class MissiveJsonContext : JsonSerializerContext
{
}
