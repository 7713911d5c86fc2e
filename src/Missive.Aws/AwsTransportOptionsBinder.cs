using System;
using System.Globalization;
using Microsoft.Extensions.Configuration;

namespace Missive.Aws;

/// <summary>
/// Binds <see cref="AwsTransportOptions"/> from a configuration section by hand (no reflection, so trimming
/// and native AOT keep working): each key is the property's name; a value that does not parse is a
/// configuration error naming the key.
/// </summary>
internal static class AwsTransportOptionsBinder
{
    public static void Bind(AwsTransportOptions options, IConfiguration section)
    {
        options.Region = String(section, nameof(AwsTransportOptions.Region)) ?? options.Region;
        options.Profile = String(section, nameof(AwsTransportOptions.Profile)) ?? options.Profile;
        options.ServiceUrl = Url(section, nameof(AwsTransportOptions.ServiceUrl)) ?? options.ServiceUrl;
        options.SqsServiceUrl = Url(section, nameof(AwsTransportOptions.SqsServiceUrl)) ?? options.SqsServiceUrl;
        options.SnsServiceUrl = Url(section, nameof(AwsTransportOptions.SnsServiceUrl)) ?? options.SnsServiceUrl;
        options.EventBridgeServiceUrl = Url(section, nameof(AwsTransportOptions.EventBridgeServiceUrl)) ?? options.EventBridgeServiceUrl;
        options.MaxAttempts = Parse(section, nameof(AwsTransportOptions.MaxAttempts), static t => int.Parse(t, NumberStyles.Integer, CultureInfo.InvariantCulture), options.MaxAttempts);
        options.MaxBackoff = Parse(section, nameof(AwsTransportOptions.MaxBackoff), static t => TimeSpan.Parse(t, CultureInfo.InvariantCulture), options.MaxBackoff);
        options.AttemptTimeout = Parse(section, nameof(AwsTransportOptions.AttemptTimeout), static t => TimeSpan.Parse(t, CultureInfo.InvariantCulture), options.AttemptTimeout);
        options.VerifyMessageDigests = Parse(section, nameof(AwsTransportOptions.VerifyMessageDigests), static t => bool.Parse(t), options.VerifyMessageDigests);
        options.VerifyResourcesAtStartup = Parse(section, nameof(AwsTransportOptions.VerifyResourcesAtStartup), static t => bool.Parse(t), options.VerifyResourcesAtStartup);
        options.UseSdkSqsClient = Parse(section, nameof(AwsTransportOptions.UseSdkSqsClient), static t => bool.Parse(t), options.UseSdkSqsClient);
        foreach (IConfigurationSection queue in section.GetSection(nameof(AwsTransportOptions.QueueUrls)).GetChildren())
        {
            options.QueueUrls[queue.Key] = Url(queue.Path, queue.Value) ?? throw Invalid(queue.Path, "an absolute URL");
        }

        foreach (IConfigurationSection topic in section.GetSection(nameof(AwsTransportOptions.TopicArns)).GetChildren())
        {
            options.TopicArns[topic.Key] = string.IsNullOrEmpty(topic.Value) ? throw Invalid(topic.Path, "a topic ARN") : topic.Value;
        }
    }

    private static string? String(IConfiguration section, string key) => section[key] is { Length: > 0 } value ? value : null;

    private static Uri? Url(IConfiguration section, string key) => Url(key, String(section, key));

    private static Uri? Url(string key, string? value)
        => value is null ? null : Uri.TryCreate(value, UriKind.Absolute, out Uri? uri) ? uri : throw Invalid(key, "an absolute URL");

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
