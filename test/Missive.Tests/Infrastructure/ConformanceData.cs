using System;
using System.Collections.Generic;
using System.IO;
using System.Text.Json;

namespace Missive.Tests.Infrastructure;

/// <summary>
/// Finds the CloudEvents conformance data in <c>../shared/conformance</c> (beside the repository) and
/// builds the golden sample events its README describes.
/// </summary>
public static class ConformanceData
{
    public static readonly string? Root = FindRoot();

    public static string MissingReason => "The CloudEvents conformance data (../shared/conformance/cloudevents) was not found beside the repository; set MISSIVE_CONFORMANCE_DIR to run these tests.";

    /// <summary>Skips only outside CI: in CI a missing folder must fail, not pass quietly.</summary>
    public static bool ShouldSkip => Root is null && !string.Equals(Environment.GetEnvironmentVariable("CI"), "true", StringComparison.OrdinalIgnoreCase);

    public static JsonElement Load(string relativePath)
    {
        if (Root is null)
        {
            throw new DirectoryNotFoundException(MissingReason);
        }

        string text = File.ReadAllText(Path.Combine(Root, relativePath)).TrimStart('\uFEFF');
        using JsonDocument document = JsonDocument.Parse(text);
        return document.RootElement.Clone();
    }

    private static string? FindRoot()
    {
        string? configured = Environment.GetEnvironmentVariable("MISSIVE_CONFORMANCE_DIR");
        if (!string.IsNullOrEmpty(configured) && Directory.Exists(configured))
        {
            return configured;
        }

        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            foreach (string candidate in new[] { Path.Combine(dir.FullName, "shared", "conformance", "cloudevents"), Path.Combine(dir.FullName, "..", "shared", "conformance", "cloudevents") })
            {
                if (Directory.Exists(Path.Combine(candidate, "format")))
                {
                    return Path.GetFullPath(candidate);
                }
            }
        }

        return null;
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

/// <summary>A theory over conformance data: skipped, with the reason, when the data is absent outside CI.</summary>
public sealed class ConformanceTheoryAttribute : TheoryAttribute
{
    public ConformanceTheoryAttribute()
    {
        if (ConformanceData.ShouldSkip)
        {
            Skip = ConformanceData.MissingReason;
        }
    }
}
