using System;
using System.Collections.Generic;
using System.IO;
using System.Text.Json;

namespace Missive.Tests.Infrastructure;

/// <summary>
/// The CloudEvents conformance data, vendored in <c>test/Missive.Tests/Conformance/Data/cloudevents</c> (see its
/// <c>ORIGIN.md</c>; <c>MISSIVE_CONFORMANCE_DIR</c> points the tests at another copy, a newer one for example), and the
/// golden sample events its README describes.
/// </summary>
public static class ConformanceData
{
    public static readonly string Root = FindRoot();

    public static JsonElement Load(string relativePath)
    {
        string text = File.ReadAllText(Path.Combine(Root, relativePath)).TrimStart('\uFEFF');
        using JsonDocument document = JsonDocument.Parse(text);
        return document.RootElement.Clone();
    }

    private static string FindRoot()
    {
        string? configured = Environment.GetEnvironmentVariable("MISSIVE_CONFORMANCE_DIR");
        string root = !string.IsNullOrEmpty(configured) ? configured : Path.Combine(RepositoryPaths.Root, "test", "Missive.Tests", "Conformance", "Data", "cloudevents");
        return Directory.Exists(Path.Combine(root, "format"))
            ? Path.GetFullPath(root)
            : throw new DirectoryNotFoundException($"The CloudEvents conformance data was not found in {root} (it is part of the repository; MISSIVE_CONFORMANCE_DIR overrides where it is read from).");
    }

    private static readonly DateTimeOffset SampleTime = new(2018, 4, 5, 17, 31, 0, TimeSpan.Zero);

    /// <summary>The golden sample events, by sample id, as the conformance README describes them.</summary>
    /// <summary>Finds the test with <paramref name="testId"/> in a conformance file (for example <c>format/json/valid-events.json</c>).</summary>
    public static JsonElement FindTest(string relativePath, string testId)
    {
        foreach (JsonElement test in Load(relativePath).GetProperty("tests").EnumerateArray())
        {
            if (test.GetProperty("id").GetString() == testId)
            {
                return test;
            }
        }

        throw new KeyNotFoundException(testId);
    }

    public static MessageEnvelope SampleEvent(string sampleId)
    {
        var envelope = new MessageEnvelope<string>
        {
            Id = sampleId,
            Source = "https://cloudevents.io",
            Type = TestSerializers.ConformanceType,
            Message = null!,
        };
        switch (sampleId)
        {
            case "minimal":
                break;
            case "minimalWithTime":
                envelope.Time = SampleTime;
                break;
            case "minimalWithRelativeSource":
                envelope.Source = "#fragment";
                break;
            case "allCore":
                envelope.DataContentType = "text/plain";
                envelope.DataSchema = "https://cloudevents.io/dataschema";
                envelope.Subject = "tests";
                envelope.Time = SampleTime;
                break;
            case "simpleTextData":
                envelope.DataContentType = "text/plain";
                envelope.Message = "Simple text";
                break;
            case "allExtensionTypes":
                envelope.Extensions.Add("extinteger", CloudEventAttributeValue.FromInteger(10));
                envelope.Extensions.Add("extboolean", CloudEventAttributeValue.FromBoolean(true));
                envelope.Extensions.Add("extstring", CloudEventAttributeValue.FromString("text"));
                envelope.Extensions.Add("extbinary", CloudEventAttributeValue.FromBinary([77, 97]));
                envelope.Extensions.Add("exttimestamp", CloudEventAttributeValue.FromTimestamp(new DateTimeOffset(2023, 3, 31, 15, 12, 0, TimeSpan.Zero)));
                envelope.Extensions.Add("exturi", CloudEventAttributeValue.FromUri("https://cloudevents.io"));
                envelope.Extensions.Add("exturiref", CloudEventAttributeValue.FromUriReference("//authority/path"));
                break;
            default:
                throw new ArgumentException($"Unknown sample event '{sampleId}'.", nameof(sampleId));
        }

        return envelope;
    }

    /// <summary>The golden sample batches, by sample id.</summary>
    public static List<MessageEnvelope> SampleBatch(string sampleId) => sampleId switch
    {
        "empty" => [],
        "minimal" => [SampleEvent("minimal")],
        "minimal2" => [SampleEvent("minimal"), SampleEvent("minimal")],
        "minimalAndAllCore" => [SampleEvent("minimal"), SampleEvent("allCore")],
        "minimalAndAllExtensionTypes" => [SampleEvent("minimal"), SampleEvent("allExtensionTypes")],
        _ => throw new ArgumentException($"Unknown sample batch '{sampleId}'.", nameof(sampleId)),
    };
}
