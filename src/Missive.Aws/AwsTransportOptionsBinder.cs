using System;
using System.Globalization;
using System.Linq;
using Microsoft.Extensions.Configuration;

namespace Missive.Aws;

/// <summary>
/// Binds <see cref="AwsTransportOptions"/> from a configuration section by hand (no reflection, so trimming
/// and native AOT keep working): each key is the property's name; a value that does not parse is a
/// configuration error naming the key.
/// </summary>
internal static class AwsTransportOptionsBinder
{
    /// <summary>The keys the binder reads; any other key under the section is a mistake it reports.</summary>
    private static readonly string[] Keys =
    [
        nameof(AwsTransportOptions.Region), nameof(AwsTransportOptions.AllowUnlistedRegion), nameof(AwsTransportOptions.Profile),
        nameof(AwsTransportOptions.ServiceUrl), nameof(AwsTransportOptions.SqsServiceUrl), nameof(AwsTransportOptions.SnsServiceUrl), nameof(AwsTransportOptions.EventBridgeServiceUrl),
        nameof(AwsTransportOptions.MaxAttempts), nameof(AwsTransportOptions.MaxBackoff), nameof(AwsTransportOptions.AttemptTimeout),
        nameof(AwsTransportOptions.VerifyMessageDigests), nameof(AwsTransportOptions.VerifyResourcesAtStartup), nameof(AwsTransportOptions.UseSdkSqsClient),
        nameof(AwsTransportOptions.MaxSqsMessageSize), nameof(AwsTransportOptions.MaxSnsMessageSize), nameof(AwsTransportOptions.MaxEventBridgeEntrySize),
        nameof(AwsTransportOptions.QueueUrls), nameof(AwsTransportOptions.TopicArns),
    ];

    public static void Bind(AwsTransportOptions options, IConfiguration section)
    {
        CheckKeys(section);
        options.Region = String(section, nameof(AwsTransportOptions.Region)) ?? options.Region;
        options.Profile = String(section, nameof(AwsTransportOptions.Profile)) ?? options.Profile;
        options.ServiceUrl = Url(section, nameof(AwsTransportOptions.ServiceUrl)) ?? options.ServiceUrl;
        options.SqsServiceUrl = Url(section, nameof(AwsTransportOptions.SqsServiceUrl)) ?? options.SqsServiceUrl;
        options.SnsServiceUrl = Url(section, nameof(AwsTransportOptions.SnsServiceUrl)) ?? options.SnsServiceUrl;
        options.EventBridgeServiceUrl = Url(section, nameof(AwsTransportOptions.EventBridgeServiceUrl)) ?? options.EventBridgeServiceUrl;
        options.MaxAttempts = Int(section, nameof(AwsTransportOptions.MaxAttempts), options.MaxAttempts);
        options.MaxBackoff = Duration(section, nameof(AwsTransportOptions.MaxBackoff), options.MaxBackoff);
        options.AttemptTimeout = Duration(section, nameof(AwsTransportOptions.AttemptTimeout), options.AttemptTimeout);
        options.VerifyMessageDigests = Bool(section, nameof(AwsTransportOptions.VerifyMessageDigests), options.VerifyMessageDigests);
        options.VerifyResourcesAtStartup = Bool(section, nameof(AwsTransportOptions.VerifyResourcesAtStartup), options.VerifyResourcesAtStartup);
        options.UseSdkSqsClient = Bool(section, nameof(AwsTransportOptions.UseSdkSqsClient), options.UseSdkSqsClient);
        options.AllowUnlistedRegion = Bool(section, nameof(AwsTransportOptions.AllowUnlistedRegion), options.AllowUnlistedRegion);
        options.MaxSqsMessageSize = Int(section, nameof(AwsTransportOptions.MaxSqsMessageSize), options.MaxSqsMessageSize);
        options.MaxSnsMessageSize = Int(section, nameof(AwsTransportOptions.MaxSnsMessageSize), options.MaxSnsMessageSize);
        options.MaxEventBridgeEntrySize = Int(section, nameof(AwsTransportOptions.MaxEventBridgeEntrySize), options.MaxEventBridgeEntrySize);
        foreach (IConfigurationSection queue in section.GetSection(nameof(AwsTransportOptions.QueueUrls)).GetChildren())
        {
            options.QueueUrls[queue.Key] = Url(queue.Path, queue.Value) ?? throw Invalid(queue.Path, "an absolute URL");
        }

        foreach (IConfigurationSection topic in section.GetSection(nameof(AwsTransportOptions.TopicArns)).GetChildren())
        {
            options.TopicArns[topic.Key] = string.IsNullOrEmpty(topic.Value) ? throw Invalid(topic.Path, "a topic ARN") : topic.Value;
        }
    }

    /// <summary>
    /// A key no setting has (a misspelt one is otherwise ignored without a word) is a configuration error naming the
    /// closest setting; the two settings configuration cannot carry say what to do instead.
    /// </summary>
    private static void CheckKeys(IConfiguration section)
    {
        foreach (IConfigurationSection child in section.GetChildren())
        {
            string key = child.Key;
            if (Array.Exists(Keys, k => string.Equals(k, key, StringComparison.OrdinalIgnoreCase)))
            {
                bool map = string.Equals(key, nameof(AwsTransportOptions.QueueUrls), StringComparison.OrdinalIgnoreCase) || string.Equals(key, nameof(AwsTransportOptions.TopicArns), StringComparison.OrdinalIgnoreCase);
                foreach (IConfigurationSection nested in map ? child.GetChildren() : [child])
                {
                    if (nested.Value is null && nested.GetChildren().Any())
                    {
                        throw new MessageBusConfigurationException($"The Missive.Aws configuration key '{nested.Path}' holds a section ({string.Join(", ", nested.GetChildren().Select(static c => c.Key))}) where a value belongs: write its value there{(map ? $" (the {key} entry of one name)" : string.Empty)}.");
                    }
                }

                continue;
            }

            string where = child.Path;
            throw new MessageBusConfigurationException(key switch
            {
                _ when string.Equals(key, nameof(AwsTransportOptions.Credentials), StringComparison.OrdinalIgnoreCase)
                    => $"The Missive.Aws configuration key '{where}' cannot be bound: credentials come from the AWS default chain (environment, profile, SSO, instance role), from Profile, or from AwsTransportOptions.Credentials in code.",
                _ when string.Equals(key, nameof(AwsTransportOptions.SqsClient), StringComparison.OrdinalIgnoreCase)
                    => $"The Missive.Aws configuration key '{where}' cannot be bound: set UseSdkSqsClient to true to use the IAmazonSQS registered in DI, or AwsTransportOptions.SqsClient in code.",
                _ => $"The Missive.Aws configuration key '{where}' is not a setting, so it would be ignored; did you mean '{ConfigurationNames.Nearest(key, Keys)}'? The settings: {string.Join(", ", Keys)}.",
            });
        }
    }

    private static string? String(IConfiguration section, string key) => section[key] is { Length: > 0 } value ? value : null;

    private static Uri? Url(IConfiguration section, string key) => Url(key, String(section, key));

    private static Uri? Url(string key, string? value)
        => value is null ? null : Uri.TryCreate(value, UriKind.Absolute, out Uri? uri) ? uri : throw Invalid(key, "an absolute URL");

    private static int Int(IConfiguration section, string key, int current) => Parse(section, key, static t => int.Parse(t, NumberStyles.Integer, CultureInfo.InvariantCulture), current);

    private static TimeSpan Duration(IConfiguration section, string key, TimeSpan current) => Parse(section, key, static t => TimeSpan.Parse(t, CultureInfo.InvariantCulture), current);

    private static bool Bool(IConfiguration section, string key, bool current) => Parse(section, key, static t => bool.Parse(t), current);

    private static T Parse<T>(IConfiguration section, string key, Func<string, T> parse, T current)
    {
        if (String(section, key) is not { } text)
        {
            return current;
        }

        try
        {
            return parse(text);
        }
        catch (FormatException)
        {
            throw Invalid(key, typeof(T) == typeof(TimeSpan) ? "a time span (hh:mm:ss)" : "a " + typeof(T).Name);
        }
        catch (OverflowException)
        {
            throw Invalid(key, "a value in range");
        }
    }

    private static MessageBusConfigurationException Invalid(string key, string expected)
        => new($"The Missive.Aws configuration value '{key}' must be {expected}.");
}
