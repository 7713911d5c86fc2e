using System.Text.Json;
using Microsoft.Extensions.Logging;
using Missive.Serialization;

namespace Missive.Json;

/// <summary>
/// The conventional CloudEvents JSON serializer and the default: it builds a <see cref="System.Text.Json.Nodes.JsonObject"/>,
/// writes it through a pooled <see cref="Utf8JsonWriter"/>, and reads through <see cref="JsonDocument"/>, the way
/// DOM-based envelope serializers do. Simple and obviously correct, it is the reference the
/// high-performance <see cref="Utf8JsonEnvelopeSerializer"/> is tested against (same bytes, same
/// envelopes) and the baseline of every benchmark.
/// </summary>
/// <remarks>The encode and decode rules are those listed on <see cref="Utf8JsonEnvelopeSerializer"/>.</remarks>
public sealed partial class StandardJsonEnvelopeSerializer : EnvelopeSerializer
{
    private readonly JsonDocumentOptions _documentOptions;

    /// <summary>Creates the serializer.</summary>
    /// <param name="messageTypes">The registered message types. Must not be null.</param>
    /// <param name="logger">A logger, or <c>null</c>.</param>
    public StandardJsonEnvelopeSerializer(MessageTypeMap messageTypes, ILogger<StandardJsonEnvelopeSerializer>? logger = null)
        : base(messageTypes, logger)
    {
        _documentOptions = new JsonDocumentOptions { MaxDepth = Settings.MaxJsonDepth, CommentHandling = JsonCommentHandling.Disallow };
        LogCreated();
    }

    /// <inheritdoc />
    public override string ContentType => ContentTypes.CloudEventsJson;

    /// <inheritdoc />
    public override EnvelopeFormat Format => EnvelopeFormat.Json;

    /// <inheritdoc />
    public override string BatchContentType => ContentTypes.CloudEventsBatchJson;
}
