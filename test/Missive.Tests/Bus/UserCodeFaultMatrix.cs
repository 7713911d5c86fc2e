using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Threading;
using System.Threading.Tasks;
using Missive.Bus;
using Missive.Serialization;

namespace Missive.Tests.Bus;

/// <summary>The seams where Missive calls the application's code.</summary>
public enum Seam
{
    StringSerializerRead,
    StringSerializerWrite,
    ConverterRead,
    ConverterWrite,
    Handler,
    FallbackHandler,
    HandleMiddleware,
    PublishMiddleware,
    FifoIdSelector,
}

/// <summary>How the application's code misbehaves there.</summary>
public enum Misbehaviour
{
    ThrowsItsOwnException,
    ThrowsCancellationNotTheHosts,
    AnswersNull,
    AnswersTheWrongType,
    HangsPastItsTimeout,
    HangsWithNoTimeout,
    ThrowsBeforeNext,
    ThrowsAfterNext,
    NeverCallsNext,
    CallsNextTwice,
    AnswersAnIdSqsRefuses,
}

/// <summary>The envelope format and serializer a case runs with (the serializer seams run with each).</summary>
public enum Format
{
    /// <summary>JSON, by the default serializer.</summary>
    StandardJson,

    /// <summary>JSON, by the fast serializer (<c>EnableExperimentalFeatures</c>).</summary>
    FastJson,

    /// <summary>CloudEvents protobuf (<c>EnableExperimentalFeatures</c>).</summary>
    Protobuf,
}

/// <summary>What becomes of a received message.</summary>
public enum Fate
{
    /// <summary>Deleted.</summary>
    Handled,

    /// <summary>Left in the queue and received again after the poller's RetryDelay, until the queue's redrive policy dead-letters it, body intact.</summary>
    RetriedThenDeadLettered,

    /// <summary>Made visible again when the host stops (its handler never finished).</summary>
    ReleasedOnShutdown,
}

/// <summary>
/// One row of the matrix: a seam, a misbehaviour, and what must hold: for a received message its fate, the event id it is
/// logged under and whether the Lambda processor reports it; for a publish the exception the caller gets and whether
/// the message was sent. <see cref="CarriesMarker"/>: the misbehaviour throws an exception whose message holds the marker.
/// </summary>
public sealed record FaultRow(Seam Seam, Misbehaviour Misbehaviour, Fate? Fate = null, int? EventId = null, bool? Reported = null, Type? Thrown = null, bool? Sent = null)
{
    public bool CarriesMarker => Misbehaviour is Misbehaviour.ThrowsItsOwnException or Misbehaviour.ThrowsCancellationNotTheHosts or Misbehaviour.ThrowsBeforeNext or Misbehaviour.ThrowsAfterNext;

    public bool IsPublish => Thrown is not null || Sent is not null;

    /// <summary>Gets whether the seam is a serializer's or a converter's, which each envelope format calls in its own way.</summary>
    public bool IsSerializer => Seam is Seam.StringSerializerRead or Seam.StringSerializerWrite or Seam.ConverterRead or Seam.ConverterWrite;

    public override string ToString() => $"{Seam}/{Misbehaviour}";
}

/// <summary>The matrix as data: one line per case (see <see cref="UserCodeFaultTests"/>).</summary>
public static class UserCodeFaultMatrix
{
    /// <summary>Put by the application's code in its data and in the messages of the exceptions it throws: it must reach no log and no exception message unless content logging is on.</summary>
    public const string Marker = "SECRET-4111-1111-1111-1111";

    public static readonly FaultRow[] Rows =
    [
        // Received: the serializers' and converters' read, handlers, the fallback handler, handling middleware.
        new(Seam.StringSerializerRead, Misbehaviour.ThrowsItsOwnException, Fate.RetriedThenDeadLettered, 2001, Reported: true),
        new(Seam.StringSerializerRead, Misbehaviour.ThrowsCancellationNotTheHosts, Fate.RetriedThenDeadLettered, 2001, Reported: true),
        new(Seam.StringSerializerRead, Misbehaviour.AnswersNull, Fate.RetriedThenDeadLettered, 2001, Reported: true),
        new(Seam.StringSerializerRead, Misbehaviour.AnswersTheWrongType, Fate.RetriedThenDeadLettered, 2001, Reported: true),
        new(Seam.ConverterRead, Misbehaviour.ThrowsItsOwnException, Fate.RetriedThenDeadLettered, 2001, Reported: true),
        new(Seam.ConverterRead, Misbehaviour.ThrowsCancellationNotTheHosts, Fate.RetriedThenDeadLettered, 2001, Reported: true),
        new(Seam.ConverterRead, Misbehaviour.AnswersNull, Fate.RetriedThenDeadLettered, 2001, Reported: true),
        new(Seam.Handler, Misbehaviour.ThrowsItsOwnException, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.Handler, Misbehaviour.ThrowsCancellationNotTheHosts, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.Handler, Misbehaviour.AnswersNull, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.Handler, Misbehaviour.HangsPastItsTimeout, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.Handler, Misbehaviour.HangsWithNoTimeout, Fate.ReleasedOnShutdown, 2005, Reported: true),
        new(Seam.FallbackHandler, Misbehaviour.ThrowsItsOwnException, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.FallbackHandler, Misbehaviour.ThrowsCancellationNotTheHosts, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.FallbackHandler, Misbehaviour.AnswersNull, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.FallbackHandler, Misbehaviour.AnswersTheWrongType, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.HandleMiddleware, Misbehaviour.ThrowsBeforeNext, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.HandleMiddleware, Misbehaviour.ThrowsAfterNext, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.HandleMiddleware, Misbehaviour.ThrowsCancellationNotTheHosts, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.HandleMiddleware, Misbehaviour.NeverCallsNext, Fate.Handled, null, Reported: false),
        new(Seam.HandleMiddleware, Misbehaviour.CallsNextTwice, Fate.RetriedThenDeadLettered, 2002, Reported: true),
        new(Seam.HandleMiddleware, Misbehaviour.AnswersTheWrongType, Fate.RetriedThenDeadLettered, 2002, Reported: true),

        // Published: the serializers' and converters' write, publish middleware, FIFO id selectors.
        new(Seam.StringSerializerWrite, Misbehaviour.ThrowsItsOwnException, Thrown: typeof(InvalidEnvelopeException), Sent: false),
        new(Seam.StringSerializerWrite, Misbehaviour.ThrowsCancellationNotTheHosts, Thrown: typeof(InvalidEnvelopeException), Sent: false),
        new(Seam.StringSerializerWrite, Misbehaviour.AnswersNull, Thrown: typeof(InvalidEnvelopeException), Sent: false),
        new(Seam.ConverterWrite, Misbehaviour.ThrowsItsOwnException, Thrown: typeof(InvalidEnvelopeException), Sent: false),
        new(Seam.PublishMiddleware, Misbehaviour.ThrowsBeforeNext, Thrown: typeof(UserCodeException), Sent: false),
        new(Seam.PublishMiddleware, Misbehaviour.ThrowsAfterNext, Thrown: typeof(UserCodeException), Sent: true),
        new(Seam.PublishMiddleware, Misbehaviour.ThrowsCancellationNotTheHosts, Thrown: typeof(UserCodeException), Sent: false),
        new(Seam.PublishMiddleware, Misbehaviour.NeverCallsNext, Thrown: null, Sent: false),
        new(Seam.PublishMiddleware, Misbehaviour.CallsNextTwice, Thrown: typeof(UserCodeException), Sent: true),
        new(Seam.FifoIdSelector, Misbehaviour.ThrowsItsOwnException, Thrown: typeof(UserCodeException), Sent: false),
        new(Seam.FifoIdSelector, Misbehaviour.AnswersAnIdSqsRefuses, Thrown: typeof(UserCodeException), Sent: false),
    ];
}

/// <summary>Which seam misbehaves now, and how; the application's code below reads it (the matrix's tests run one case at a time).</summary>
public static class Faults
{
    private static int s_calls;

    public static Seam? Seam { get; set; }

    public static Misbehaviour Misbehaviour { get; set; }

    /// <summary>Gets how many times the misbehaving code was called (one per delivery, for a received message).</summary>
    public static int Calls => Volatile.Read(ref s_calls);

    public static void Reset(Seam? seam = null, Misbehaviour misbehaviour = default)
    {
        Seam = seam;
        Misbehaviour = misbehaviour;
        Volatile.Write(ref s_calls, 0);
    }

    /// <summary>Whether <paramref name="seam"/> misbehaves now (counting the call); false for every other seam.</summary>
    public static bool At(Seam seam)
    {
        if (Seam != seam)
        {
            return false;
        }

        Interlocked.Increment(ref s_calls);
        return true;
    }

    /// <summary>The exception the application's code throws for the current misbehaviour, holding the marker.</summary>
    public static Exception Thrown() => Misbehaviour switch
    {
        Misbehaviour.ThrowsCancellationNotTheHosts => new OperationCanceledException("cancelled while reading " + UserCodeFaultMatrix.Marker),
        _ => new PipeFormatException("cannot read " + UserCodeFaultMatrix.Marker),
    };
}

/// <summary>An exception type of the application's own, as Newtonsoft.Json's or DataContractSerializer's are.</summary>
public sealed class PipeFormatException(string message) : Exception(message);

/// <summary>A message written by an <see cref="IStringMessageSerializer"/> of the application (as <c>text/x-pipe</c>).</summary>
public sealed record Note(string Text);

/// <summary>A message published to a FIFO queue, with its group id from a selector of the application.</summary>
public sealed record FifoNote(string Text);

/// <summary>A message whose type the receiving bus does not register: it reaches the fallback handler.</summary>
public sealed record Stray(string Text);

/// <summary>A message written through the application's <see cref="JsonSerializerContext"/>, whose converter may misbehave.</summary>
public sealed class Parcel
{
    public string Label { get; set; } = string.Empty;
}

public sealed class PipeSerializer : IStringMessageSerializer
{
    public string ContentType => "text/x-pipe";

    public string Serialize(object message)
    {
        if (Faults.At(Seam.StringSerializerWrite))
        {
            return Faults.Misbehaviour == Misbehaviour.AnswersNull ? null! : throw Faults.Thrown();
        }

        return "note|" + ((Note)message).Text;
    }

    public object Deserialize(string data, Type messageType)
    {
        if (Faults.At(Seam.StringSerializerRead))
        {
            return Faults.Misbehaviour switch
            {
                Misbehaviour.AnswersNull => null!,
                Misbehaviour.AnswersTheWrongType => 42,
                _ => throw Faults.Thrown(),
            };
        }

        return new Note(data["note|".Length..]);
    }
}

public sealed class ParcelConverter : JsonConverter<Parcel>
{
    public override Parcel? Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        using JsonDocument document = JsonDocument.ParseValue(ref reader);
        if (Faults.At(Seam.ConverterRead))
        {
            return Faults.Misbehaviour == Misbehaviour.AnswersNull ? null : throw Faults.Thrown();
        }

        return new Parcel { Label = document.RootElement.GetProperty("label").GetString()! };
    }

    public override void Write(Utf8JsonWriter writer, Parcel value, JsonSerializerOptions options)
    {
        if (Faults.At(Seam.ConverterWrite))
        {
            throw Faults.Thrown();
        }

        writer.WriteStartObject();
        writer.WriteString("label", value.Label);
        writer.WriteEndObject();
    }
}

[JsonSourceGenerationOptions(Converters = [typeof(ParcelConverter)])]
[JsonSerializable(typeof(Parcel))]
[JsonSerializable(typeof(FifoNote))]
[JsonSerializable(typeof(Stray))]
public sealed partial class FaultJsonContext : JsonSerializerContext
{
}

/// <summary>Counts what the handlers did, for the cases where their code runs well.</summary>
public sealed class Handled
{
    public ConcurrentQueue<string> Texts { get; } = new();
}

public sealed class NoteHandler(Handled handled) : IMessageHandler<Note>
{
    public Task HandleAsync(MessageEnvelope<Note> envelope, CancellationToken cancellationToken)
    {
        if (Faults.At(Seam.Handler))
        {
            switch (Faults.Misbehaviour)
            {
                case Misbehaviour.AnswersNull:
                    return null!;
                case Misbehaviour.HangsPastItsTimeout:
                    return Task.Delay(Timeout.Infinite, CancellationToken.None); // ignores its token
                case Misbehaviour.HangsWithNoTimeout:
                    return Task.Delay(Timeout.Infinite, cancellationToken);
                default:
                    throw Faults.Thrown();
            }
        }

        handled.Texts.Enqueue(envelope.Message.Text);
        return Task.CompletedTask;
    }
}

public sealed class ParcelHandler(Handled handled) : IMessageHandler<Parcel>
{
    public Task HandleAsync(MessageEnvelope<Parcel> envelope, CancellationToken cancellationToken)
    {
        handled.Texts.Enqueue(envelope.Message.Label);
        return Task.CompletedTask;
    }
}

public sealed class FifoNoteHandler(Handled handled) : IMessageHandler<FifoNote>
{
    public Task HandleAsync(MessageEnvelope<FifoNote> envelope, CancellationToken cancellationToken)
    {
        handled.Texts.Enqueue(envelope.Message.Text);
        return Task.CompletedTask;
    }
}

public sealed class Fallback : IFallbackMessageHandler
{
    public Task<HandleOutcome> HandleAsync(MessageEnvelope<UnregisteredMessage> envelope, CancellationToken cancellationToken)
    {
        if (Faults.At(Seam.FallbackHandler))
        {
            return Faults.Misbehaviour switch
            {
                Misbehaviour.AnswersNull => null!,
                Misbehaviour.AnswersTheWrongType => Task.FromResult((HandleOutcome)42),
                _ => throw Faults.Thrown(),
            };
        }

        return Task.FromResult(HandleOutcome.Handled);
    }
}

public sealed class FaultyHandleMiddleware : IHandleMiddleware
{
    public async Task InvokeAsync(HandleContext context, HandleStep nextStep)
    {
        if (!Faults.At(Seam.HandleMiddleware))
        {
            await nextStep(context);
            return;
        }

        switch (Faults.Misbehaviour)
        {
            case Misbehaviour.NeverCallsNext:
                return;
            case Misbehaviour.CallsNextTwice:
                await nextStep(context);
                await nextStep(context);
                return;
            case Misbehaviour.ThrowsAfterNext:
                await nextStep(context);
                throw Faults.Thrown();
            case Misbehaviour.AnswersTheWrongType:
                await nextStep(context);
                context.Outcome = (HandleOutcome)(-1); // below the first member, so a check of the upper bound alone misses it
                return;
            default:
                throw Faults.Thrown();
        }
    }
}

public sealed class FaultyPublishMiddleware : IPublishMiddleware
{
    public async Task InvokeAsync(PublishContext context, PublishStep nextStep)
    {
        if (!Faults.At(Seam.PublishMiddleware))
        {
            await nextStep(context);
            return;
        }

        switch (Faults.Misbehaviour)
        {
            case Misbehaviour.NeverCallsNext:
                return;
            case Misbehaviour.CallsNextTwice:
                await nextStep(context);
                await nextStep(context);
                return;
            case Misbehaviour.ThrowsAfterNext:
                await nextStep(context);
                throw Faults.Thrown();
            default:
                throw Faults.Thrown();
        }
    }
}

/// <summary>The FIFO group id of a <see cref="FifoNote"/>: its text, unless the selector misbehaves.</summary>
public static class FifoGroup
{
    public static string Of(FifoNote note)
    {
        if (Faults.At(Seam.FifoIdSelector))
        {
            return Faults.Misbehaviour == Misbehaviour.AnswersAnIdSqsRefuses ? "group " + new string('x', 200) : throw Faults.Thrown();
        }

        return "group-" + note.Text.Length;
    }
}
