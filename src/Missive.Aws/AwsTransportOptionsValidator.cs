using System;
using Microsoft.Extensions.Options;

namespace Missive.Aws;

/// <summary>Checks <see cref="AwsTransportOptions"/> at startup, and that they resolve to a region, credentials and endpoints.</summary>
internal sealed class AwsTransportOptionsValidator : IValidateOptions<AwsTransportOptions>
{
    private readonly Func<string, string?> _environment;

    public AwsTransportOptionsValidator(Func<string, string?> environment) => _environment = environment;

    public ValidateOptionsResult Validate(string? name, AwsTransportOptions options)
    {
        if (options.MaxAttempts is < 1 or > 20)
        {
            return ValidateOptionsResult.Fail($"Missive.Aws MaxAttempts is {options.MaxAttempts}; it counts every attempt, the first included, and must be 1 to 20 (AWS standard mode uses 3).");
        }

        if (options.MaxBackoff <= TimeSpan.Zero || options.MaxBackoff > TimeSpan.FromMinutes(5))
        {
            return ValidateOptionsResult.Fail($"Missive.Aws MaxBackoff is {options.MaxBackoff}; it must be above zero and at most 5 minutes (AWS standard mode uses 20 seconds).");
        }

        if (options.AttemptTimeout < TimeSpan.FromSeconds(1))
        {
            return ValidateOptionsResult.Fail($"Missive.Aws AttemptTimeout is {options.AttemptTimeout}; it must be at least 1 second.");
        }

        foreach ((string queue, Uri url) in options.QueueUrls)
        {
            if (!url.IsAbsoluteUri || (url.Scheme != Uri.UriSchemeHttps && url.Scheme != Uri.UriSchemeHttp))
            {
                return ValidateOptionsResult.Fail($"Missive.Aws QueueUrls:{queue} must be an absolute http or https URL.");
            }
        }

        foreach ((string topic, string arn) in options.TopicArns)
        {
            if (!arn.StartsWith("arn:", StringComparison.Ordinal) || !arn.Contains(":sns:", StringComparison.Ordinal))
            {
                return ValidateOptionsResult.Fail($"Missive.Aws TopicArns:{topic} must be an SNS topic ARN (arn:aws:sns:region:account:name).");
            }
        }

        try
        {
            _ = AwsSettings.Resolve(options, _environment);
        }
        catch (MessageBusConfigurationException e)
        {
            return ValidateOptionsResult.Fail(e.Message);
        }

        return ValidateOptionsResult.Success;
    }
}
