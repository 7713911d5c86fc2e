using System;
using System.Collections.Generic;
using System.Linq;
using System.Net.Http;
using System.Threading;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Missive;
using Missive.Aws;
using Missive.Bus;
using Missive.Transport;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Runs the bus on Amazon SQS, SNS and EventBridge.</summary>
public static class MessageBusBuilderAwsExtensions
{
    /// <summary>The prefix of the named <see cref="HttpClient"/>s the transport uses (one per service: <c>Missive.Aws.sqs</c>, <c>.sns</c>, <c>.events</c>), for adding handlers.</summary>
    public const string HttpClientNamePrefix = "Missive.Aws.";

    /// <summary>
    /// The log category of the transport's HTTP clients (IHttpClientFactory's, below which each client has its own); its
    /// messages are shown from <see cref="LogLevel.Warning"/> unless the application sets a level for it.
    /// </summary>
    public const string HttpClientLogCategory = "System.Net.Http.HttpClient.Missive.Aws";

    /// <summary>Uses <see cref="AwsTransport"/> as the bus's transport.</summary>
    /// <param name="bus">The bus builder. Must not be null.</param>
    /// <param name="configure">Sets options in code, or <c>null</c> for the defaults.</param>
    /// <returns>The builder.</returns>
    /// <remarks>
    /// The options are checked when the host starts (or when the first publisher is resolved, without a generic host) with the
    /// bus's own checks: every problem, another transport configured too among them, is listed in one
    /// <see cref="MessageBusConfigurationException"/> that says how to fix it.
    /// </remarks>
    public static MessageBusBuilder UseAws(this MessageBusBuilder bus, Action<AwsTransportOptions>? configure = null)
        => UseAws(bus, configuration: null, configure);

    /// <summary>Uses <see cref="AwsTransport"/> as the bus's transport, with options from a configuration section (keys named as the <see cref="AwsTransportOptions"/> properties).</summary>
    /// <param name="bus">The bus builder. Must not be null.</param>
    /// <param name="configuration">The section, for example <c>configuration.GetSection("Missive:Aws")</c>; or <c>null</c>.</param>
    /// <param name="configure">Sets options in code after the section is bound, or <c>null</c>.</param>
    /// <returns>The builder.</returns>
    /// <remarks>See <see cref="UseAws(MessageBusBuilder, Action{AwsTransportOptions}?)"/>.</remarks>
    public static MessageBusBuilder UseAws(this MessageBusBuilder bus, IConfiguration? configuration, Action<AwsTransportOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(bus);
        IServiceCollection services = bus.Services;
        foreach (ServiceDescriptor descriptor in services)
        {
            if (descriptor.ServiceType == typeof(IMessageTransport))
            {
                services.AddSingleton<IMessageBusConfigurationCheck>(new Problem("Two transports are configured for the bus: call UseAws or UseInMemoryBroker once, not both."));
                return bus;
            }
        }

        OptionsBuilder<AwsTransportOptions> options = services.AddOptions<AwsTransportOptions>();
        if (configuration is not null)
        {
            if (configuration is IConfigurationSection section && !section.GetChildren().Any())
            {
                // A misspelt section reads as empty: the transport would go to the AWS the environment names.
                services.AddSingleton<IMessageBusConfigurationCheck>(new MissingSection(section.Path));
            }

            options.Configure(o => AwsTransportOptionsBinder.Bind(o, configuration));
        }

        if (configure is not null)
        {
            options.Configure(configure);
        }

        services.AddSingleton<IMessageBusConfigurationCheck>(new AwsTransportOptionsValidator(Environment.GetEnvironmentVariable));
        services.AddSingleton<IMessageBusResourceCheck>(sp => new AwsResourceCheck(sp.GetRequiredService<IOptions<AwsTransportOptions>>().Value, sp.GetRequiredService<AwsTransport>));
        services.TryAddSingleton(TimeProvider.System);
        services.TryAddSingleton(sp => AwsSettings.Resolve(sp.GetRequiredService<IOptions<AwsTransportOptions>>().Value, Environment.GetEnvironmentVariable, application: ApplicationAws.From(sp)));
        // IHttpClientFactory logs four lines at Information for every call; the transport's clients are quiet below
        // Warning unless the application asks (Logging:LogLevel:System.Net.Http.HttpClient.Missive.Aws, or one client's
        // category). The rule goes first, so that a rule the application configures for the same category wins.
        services.Insert(0, ServiceDescriptor.Singleton<IConfigureOptions<LoggerFilterOptions>>(new ConfigureOptions<LoggerFilterOptions>(
            static o => o.Rules.Add(new LoggerFilterRule(null, HttpClientLogCategory, LogLevel.Warning, null)))));
        // The transport is a singleton holding one client per service for its life, so the factory's handler rotation
        // would only leave an expired handler for its cleanup timer; connections are renewed by the socket handler's
        // PooledConnectionLifetime instead (DNS changes are seen within it).
        foreach (string service in new[] { AwsSettings.SqsSigningName, AwsSettings.SnsSigningName, AwsSettings.EventBridgeSigningName })
        {
            services.AddHttpClient(HttpClientNamePrefix + service)
                .SetHandlerLifetime(Timeout.InfiniteTimeSpan)
                .ConfigureHttpClient(client => client.Timeout = Timeout.InfiniteTimeSpan)
                .ConfigurePrimaryHttpMessageHandler(sp => AwsTransport.CreateSigningHandler(sp.GetRequiredService<AwsSettings>(), service));
        }

        services.AddSingleton<IMessageBusConfigurationCheck>(sp => new SdkSqsClientCheck(sp));
        services.TryAddSingleton(sp =>
        {
            IHttpClientFactory factory = sp.GetRequiredService<IHttpClientFactory>();
            AwsTransportOptions options = sp.GetRequiredService<IOptions<AwsTransportOptions>>().Value;
            return new AwsTransport(
                options,
                sp.GetRequiredService<AwsSettings>(),
                service => factory.CreateClient(HttpClientNamePrefix + service),
                sp.GetRequiredService<TimeProvider>(),
                sp.GetService<ILoggerFactory>()?.CreateLogger<AwsTransport>(),
                options.SqsClient ?? (options.UseSdkSqsClient ? sp.GetService<Amazon.SQS.IAmazonSQS>() : null));
        });
        services.AddSingleton<IMessageTransport>(sp => sp.GetRequiredService<AwsTransport>());
        return bus;
    }

    /// <summary>
    /// Keeps the payloads of <c>UsePayloadOffload</c> in an S3 bucket (<see cref="S3PayloadStore"/>) through the AWS SDK's
    /// S3 client: <see cref="S3PayloadStoreOptions.Client"/>, else the <c>IAmazonS3</c> registered in DI, else one built
    /// with the region, credentials and endpoint settings of <c>UseAws</c>. Call <c>UsePayloadOffload</c> as well; the
    /// order does not matter.
    /// </summary>
    /// <param name="bus">The bus builder.</param>
    /// <param name="configure">Sets the bucket (required), the key prefix, the endpoint and SSE-KMS. Must not be null.</param>
    /// <returns>The builder.</returns>
    public static MessageBusBuilder UseS3PayloadStore(this MessageBusBuilder bus, Action<S3PayloadStoreOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(bus);
        ArgumentNullException.ThrowIfNull(configure);
        var options = new S3PayloadStoreOptions();
        configure(options);
        if (string.IsNullOrEmpty(options.Bucket))
        {
            bus.Services.AddSingleton<IMessageBusConfigurationCheck>(new Problem("UseS3PayloadStore has no bucket: set S3PayloadStoreOptions.Bucket to the bucket payloads are stored in."));
            return bus;
        }

        bus.Services.RemoveAll<Missive.Offload.IPayloadStore>();
        bus.Services.AddSingleton<Missive.Offload.IPayloadStore>(sp => (options.Client ?? sp.GetService<Amazon.S3.IAmazonS3>()) is { } client
            ? new S3PayloadStore(options, client)
            : new S3PayloadStore(options, sp.GetRequiredService<IOptions<AwsTransportOptions>>().Value, sp.GetRequiredService<AwsSettings>(), Environment.GetEnvironmentVariable, handler: null));
        return bus;
    }

    /// <summary>UseSdkSqsClient without an IAmazonSQS to use: a startup error that says what to register.</summary>
    private sealed class SdkSqsClientCheck(IServiceProvider services) : IMessageBusConfigurationCheck
    {
        public void Check(MessageBusDescription bus, ICollection<string> problems)
        {
            AwsTransportOptions options;
            try
            {
                options = services.GetRequiredService<IOptions<AwsTransportOptions>>().Value;
            }
            catch (MessageBusConfigurationException)
            {
                return; // a value that does not bind: the options' own check reports it, once
            }

            if (options.SqsClient is { } given)
            {
                CheckSigningRegion(given, problems);
                return;
            }

            if (!options.UseSdkSqsClient)
            {
                return;
            }

            Amazon.SQS.IAmazonSQS? client;
            try
            {
                client = services.GetService<Amazon.SQS.IAmazonSQS>();
            }
            catch (Exception e) when (e is Amazon.Runtime.AmazonClientException or InvalidOperationException or ArgumentException)
            {
                problems.Add($"AwsTransportOptions.UseSdkSqsClient is on, but the IAmazonSQS registered could not be created: {e.Message} Configure it (the \"AWS\" section read by AddDefaultAWSOptions: Region, Profile, ServiceURL; or AWS_REGION and the credential chain).");
                return;
            }

            if (client is null)
            {
                problems.Add("AwsTransportOptions.UseSdkSqsClient is on, but no IAmazonSQS is registered: register one (services.AddAWSService<IAmazonSQS>() from AWSSDK.Extensions.NETCore.Setup, or AddSingleton<IAmazonSQS>(...)), or set AwsTransportOptions.SqsClient.");
                return;
            }

            CheckSigningRegion(client, problems);
        }

        /// <summary>
        /// The application's IAmazonSQS signs for the region the bus's other calls (SNS, EventBridge, S3, its checks) sign
        /// for: else a queue made in one is not found through the other (the SDK signs for us-east-1 at a ServiceURL
        /// without AuthenticationRegion).
        /// </summary>
        private void CheckSigningRegion(Amazon.SQS.IAmazonSQS client, ICollection<string> problems)
        {
            AwsSettings settings;
            try
            {
                settings = services.GetRequiredService<AwsSettings>();
            }
            catch (MessageBusConfigurationException)
            {
                return; // the options' own check reports why they do not resolve
            }

            Missive.Aws.Protocol.SdkClientSite site = Missive.Aws.Protocol.SdkClientSite.Of(client.Config, "sqs");
            if (!string.Equals(site.Region, settings.Region.SystemName, StringComparison.Ordinal))
            {
                problems.Add($"The application's IAmazonSQS signs for '{site.Region}' ({site.Endpoint.GetLeftPart(UriPartial.Authority)}, {site.Choice}), but the bus's other calls (SNS, EventBridge, the payload store) sign for '{settings.Region.SystemName}' (from {settings.RegionSource}): a queue of one region is not found in the other. Make them one: set AuthenticationRegion to '{settings.Region.SystemName}' beside ServiceURL in the \"AWS\" configuration section (or Region, without a ServiceURL).");
            }
        }
    }

    /// <summary>The section given to <c>UseAws</c> is missing or empty: the problem names it, and the section it most likely meant.</summary>
    private sealed class MissingSection(string path) : IMessageBusConfigurationCheck
    {
        public void Check(MessageBusDescription bus, ICollection<string> problems)
        {
            int colon = path.LastIndexOf(':');
            string parent = colon < 0 ? string.Empty : path[..colon], name = path[(colon + 1)..];
            IConfiguration? root = bus.Services.GetService<IConfiguration>();
            IEnumerable<IConfigurationSection> siblings = root is null ? [] : parent.Length == 0 ? root.GetChildren() : root.GetSection(parent).GetChildren();
            string? meant = ConfigurationNames.Nearest(name, siblings.Where(static s => s.GetChildren().Any()).Select(static s => s.Key), maxDistance: 3);
            problems.Add($"The configuration section '{path}' given to UseAws is missing or empty{(meant is null ? string.Empty : $" (did you mean '{(parent.Length == 0 ? meant : parent + ":" + meant)}'?)")}: the transport would run on whatever AWS the environment names (AWS_REGION, the instance's role). Give the section that holds the Missive.Aws settings, or call UseAws(o => …) to configure it in code.");
        }
    }

    /// <summary>A problem found while the bus was configured, reported with the others when the host starts.</summary>
    private sealed class Problem(string problem) : IMessageBusConfigurationCheck
    {
        public void Check(MessageBusDescription bus, ICollection<string> problems) => problems.Add(problem);
    }
}
