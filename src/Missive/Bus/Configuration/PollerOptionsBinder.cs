using System;
using System.Collections.Generic;
using System.Globalization;
using Microsoft.Extensions.Configuration;

namespace Missive.Bus;

/// <summary>
/// Reads <see cref="PollerOptions"/> from a configuration section by hand (no reflection, so trimming and native AOT keep
/// working): each key is the property's name. A section that is missing or empty, a key no setting has (with the nearest
/// one), a key holding a section, and a value that does not parse are each a problem for the startup check, naming the key.
/// </summary>
internal static class PollerOptionsBinder
{
    /// <summary>The keys it reads.</summary>
    private static readonly string[] Keys =
    [
        nameof(PollerOptions.MaxConcurrency), nameof(PollerOptions.MaxMessagesPerReceive), nameof(PollerOptions.WaitTime),
        nameof(PollerOptions.VisibilityTimeout), nameof(PollerOptions.ReceiveErrorDelay), nameof(PollerOptions.MaxReceiveErrorDelay),
        nameof(PollerOptions.RetryDelay), nameof(PollerOptions.DeadLetterQueue),
    ];

    public static void Bind(PollerOptions options, IConfiguration section, ICollection<string> problems)
    {
        string path = section is IConfigurationSection named ? named.Path : "(the configuration root)";
        bool any = false;
        foreach (IConfigurationSection child in section.GetChildren())
        {
            any = true;
            if (!Array.Exists(Keys, k => string.Equals(k, child.Key, StringComparison.OrdinalIgnoreCase)))
            {
                problems.Add($"The poller configuration key '{child.Path}' is not a setting, so it would be ignored; did you mean '{ConfigurationNames.Nearest(child.Key, Keys)}'? The settings: {string.Join(", ", Keys)}.");
            }
            else if (child.Value is null)
            {
                problems.Add($"The poller configuration key '{child.Path}' holds a section where a value belongs: write its value there.");
            }
        }

        if (!any)
        {
            problems.Add($"The poller configuration section '{path}' is missing or empty: check its name (a misspelt section is read as empty), or configure the poller in code.");
            return;
        }

        options.MaxConcurrency = Parse(section, nameof(PollerOptions.MaxConcurrency), static t => int.Parse(t, NumberStyles.Integer, CultureInfo.InvariantCulture), "a whole number", options.MaxConcurrency, problems);
        options.MaxMessagesPerReceive = Parse(section, nameof(PollerOptions.MaxMessagesPerReceive), static t => int.Parse(t, NumberStyles.Integer, CultureInfo.InvariantCulture), "a whole number", options.MaxMessagesPerReceive, problems);
        options.WaitTime = Parse(section, nameof(PollerOptions.WaitTime), Duration, "a time span (hh:mm:ss)", options.WaitTime, problems);
        options.VisibilityTimeout = Parse(section, nameof(PollerOptions.VisibilityTimeout), Duration, "a time span (hh:mm:ss)", options.VisibilityTimeout, problems);
        options.ReceiveErrorDelay = Parse(section, nameof(PollerOptions.ReceiveErrorDelay), Duration, "a time span (hh:mm:ss)", options.ReceiveErrorDelay, problems);
        options.MaxReceiveErrorDelay = Parse(section, nameof(PollerOptions.MaxReceiveErrorDelay), Duration, "a time span (hh:mm:ss)", options.MaxReceiveErrorDelay, problems);
        options.RetryDelay = Parse<TimeSpan?>(section, nameof(PollerOptions.RetryDelay), static t => Duration(t), "a time span (hh:mm:ss)", options.RetryDelay, problems);
        options.DeadLetterQueue = section[nameof(PollerOptions.DeadLetterQueue)] is { Length: > 0 } queue ? queue : options.DeadLetterQueue;
    }

    private static TimeSpan Duration(string text) => TimeSpan.Parse(text, CultureInfo.InvariantCulture);

    private static T Parse<T>(IConfiguration section, string key, Func<string, T> parse, string expected, T current, ICollection<string> problems)
    {
        if (section[key] is not { Length: > 0 } text)
        {
            return current;
        }

        try
        {
            return parse(text);
        }
        catch (Exception e) when (e is FormatException or OverflowException)
        {
            problems.Add($"The poller configuration value '{(section is IConfigurationSection named ? named.Path + ":" : string.Empty)}{key}' is '{text}', which is not {expected}.");
            return current;
        }
    }
}
