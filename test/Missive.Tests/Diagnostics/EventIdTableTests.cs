using System;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text.RegularExpressions;
using Microsoft.Extensions.Logging;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Diagnostics;

/// <summary>docs/event-ids.md lists every event id Missive and Missive.Aws log, with its level, and nothing else.</summary>
public sealed partial class EventIdTableTests
{
    [Fact]
    public void TheEventIdTable_MatchesEveryLogMessageOfTheCode()
    {
        string table = File.ReadAllText(Path.Combine(RepositoryPaths.Root, "docs", "event-ids.md"));
        string[] documented = Row().Matches(table).Select(m => m.Groups[1].Value + " " + m.Groups[2].Value).Order(StringComparer.Ordinal).ToArray();

        string[] logged = new[] { typeof(MessageEnvelope).Assembly, typeof(Missive.Aws.AwsTransport).Assembly }
            .SelectMany(a => a.GetTypes())
            .SelectMany(t => t.GetMethods(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic))
            .Select(m => m.GetCustomAttribute<LoggerMessageAttribute>())
            .Where(a => a is not null)
            .Select(a => a!.EventId + " " + a.Level)
            .Distinct()
            .Order(StringComparer.Ordinal)
            .ToArray();

        Assert.NotEmpty(logged);
        Assert.Equal(logged, documented);
    }

    [GeneratedRegex(@"^\| (\d{4}) \| (\w+) \|", RegexOptions.Multiline)]
    private static partial Regex Row();
}
