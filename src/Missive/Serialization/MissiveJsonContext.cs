using System;
using System.Text.Json.Serialization;

namespace Missive.Serialization;

/// <summary>Source-generated metadata for the few values the DOM-based serializer builds nodes from.</summary>
[JsonSerializable(typeof(byte[]))]
[JsonSerializable(typeof(DateTimeOffset))]
[JsonSerializable(typeof(string))]
internal sealed partial class MissiveJsonContext : JsonSerializerContext
{
}
