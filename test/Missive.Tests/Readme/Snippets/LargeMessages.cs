using System;
using System.Text.Json.Serialization;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Missive;
using Missive.Bus;

namespace Missive.Tests.Readme;

public sealed record ScannedDocument(string DocumentId, byte[] Pages);

[JsonSerializable(typeof(ScannedDocument))]
public sealed partial class DocumentsJsonContext : JsonSerializerContext
{
}

public sealed class ScannedDocumentHandler : IMessageHandler<ScannedDocument>
{
    public Task HandleAsync(MessageEnvelope<ScannedDocument> envelope, CancellationToken cancellationToken)
    {
        Console.WriteLine($"{envelope.Message.DocumentId}: {envelope.Message.Pages.Length} bytes of pages");
        return Task.CompletedTask;
    }
}

public static class LargeMessages
{
    // On the in-memory broker, with the in-memory payload store.
    public static IServiceCollection AddDocuments(this IServiceCollection services) => services.AddMessageBus(bus => bus
        .AddMessageType<ScannedDocument>("Documents.Scanned")
        .ConfigureSerialization(o =>
        {
            o.JsonSerializerContext = DocumentsJsonContext.Default;
            o.MaxEnvelopeSize = 16 * 1024 * 1024; // the largest message read (what is sent is limited by its destination)
        })
        .AddSqsPublisher<ScannedDocument>("documents")
        .AddHandler<ScannedDocument, ScannedDocumentHandler>()
        .AddQueuePoller("documents")
        .UsePayloadOffload()
        .UseInMemoryBroker(broker => broker.CreateQueue("documents")));

    // On AWS, with the payloads in an S3 bucket.
    public static IServiceCollection AddDocumentsOnAws(this IServiceCollection services, IConfiguration configuration) => services.AddMessageBus(bus => bus
        .AddMessageType<ScannedDocument>("Documents.Scanned")
        .ConfigureSerialization(o =>
        {
            o.JsonSerializerContext = DocumentsJsonContext.Default;
            o.MaxEnvelopeSize = 16 * 1024 * 1024;
        })
        .AddSqsPublisher<ScannedDocument>("documents")
        .AddHandler<ScannedDocument, ScannedDocumentHandler>()
        .AddQueuePoller("documents")
        .UseAws(configuration.GetSection("Missive:Aws"))
        .UsePayloadOffload(o => o.Threshold = 256 * 1024) // store what is over 256 KiB, as the extended clients do
        .UseS3PayloadStore(o => o.Bucket = "documents-payloads"));
}
