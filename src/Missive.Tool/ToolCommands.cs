using System;
using System.Collections.Generic;
using System.CommandLine;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Amazon.Runtime;
using Missive.Transport;

namespace Missive.Tool;

/// <summary>The command line: <c>peek</c>, <c>why</c>, <c>redrive</c>, <c>send</c>, <c>stats</c>, with the AWS options every command takes.</summary>
internal static class ToolCommands
{
    private static readonly Option<string?> EndpointUrl = new("--endpoint-url") { Description = "The AWS endpoint to call (default: the SDK's, or AWS_ENDPOINT_URL).", Recursive = true };
    private static readonly Option<string?> Region = new("--region") { Description = "The AWS region (default: AWS_REGION, or the profile's).", Recursive = true };
    private static readonly Option<string?> Profile = new("--profile") { Description = "The named profile of the shared AWS config files (default: AWS_PROFILE, or the SDK's chain).", Recursive = true };
    private static readonly Option<bool> Verbose = new("--verbose") { Description = "Show a failure's whole exception, not one line.", Recursive = true };

    /// <summary>Parses and runs a command line; the exit code is 0 on success, 1 on a failure (one line on <paramref name="error"/>), 2 on a usage error.</summary>
    public static async Task<int> RunAsync(string[] args, TextWriter output, TextWriter error, CancellationToken cancellationToken = default)
    {
        RootCommand root = Build(output, error);
        ParseResult parsed = root.Parse(args);
        if (parsed.Errors.Count > 0)
        {
            foreach (System.CommandLine.Parsing.ParseError problem in parsed.Errors)
            {
                await error.WriteLineAsync(problem.Message).ConfigureAwait(false);
            }

            await error.WriteLineAsync("Run 'missive --help' for usage.").ConfigureAwait(false);
            return 2;
        }

        try
        {
            return await parsed.InvokeAsync(new InvocationConfiguration { Output = output, Error = error, EnableDefaultExceptionHandler = false }, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            await error.WriteLineAsync("missive: " + Describe(e)).ConfigureAwait(false);
            if (parsed.GetValue(Verbose))
            {
                await error.WriteLineAsync(e.ToString()).ConfigureAwait(false);
            }

            return e is OperationCanceledException ? 130 : 1;
        }
    }

    /// <summary>A failure in one line: the library's own words (endpoint, region, what to check) where it has them.</summary>
    internal static string Describe(Exception e) => e switch
    {
        ToolException or MessageTransportException => e.Message,
        OperationCanceledException => "Stopped.",
        AmazonServiceException service => $"{service.ErrorCode ?? service.StatusCode.ToString()}: {service.Message}",
        AmazonClientException client when client.InnerException is System.Net.Http.HttpRequestException http => $"The endpoint could not be reached ({http.Message}): check --endpoint-url, AWS_ENDPOINT_URL and --region.",
        AmazonClientException client => client.Message,
        System.Net.Http.HttpRequestException http => $"The endpoint could not be reached ({http.Message}): check --endpoint-url, AWS_ENDPOINT_URL and --region.",
        ArgumentException argument => argument.Message,
        _ => $"{e.GetType().Name}: {e.Message}",
    };

    private static RootCommand Build(TextWriter output, TextWriter error)
    {
        var root = new RootCommand("Looks into the SQS queues that carry Missive's messages (and MassTransit's, NServiceBus's and AWS services'), explains why messages were not handled, and moves them back. Calls AWS through the official SDK with its own credential chain, profiles and AWS_ENDPOINT_URL.");
        root.Options.Add(EndpointUrl);
        root.Options.Add(Region);
        root.Options.Add(Profile);
        root.Options.Add(Verbose);
        root.Subcommands.Add(Inspect("peek", "Shows messages of a queue decoded, without consuming them: each is received, then made visible again at once. Its receive count rises by one, as with the console's poll: on a queue with a redrive policy, a message at its maxReceiveCount then moves to the dead-letter queue.", output, error, why: false));
        root.Subcommands.Add(Inspect("why", "Says, for each message of a queue (a dead-letter queue, typically), why a Missive consumer would not handle it, with the reader's own reason. Nothing is deleted; receive counts rise by one, as with peek.", output, error, why: true));
        root.Subcommands.Add(RedriveCommand.Create(output, error));
        root.Subcommands.Add(SendCommand.Create(output));
        root.Subcommands.Add(StatsCommand.Create(output, error));
        return root;
    }

    internal static ToolSettings Settings(ParseResult parsed, bool json = false, string? s3EndpointUrl = null) => new()
    {
        EndpointUrl = parsed.GetValue(EndpointUrl),
        S3EndpointUrl = s3EndpointUrl,
        Region = parsed.GetValue(Region),
        Profile = parsed.GetValue(Profile),
        Verbose = parsed.GetValue(Verbose),
        Json = json,
    };

    private static Command Inspect(string name, string description, TextWriter output, TextWriter error, bool why)
    {
        var queue = new Argument<string>("queue") { Description = "The queue: its name, or its URL." };
        var max = new Option<int>("--max-messages") { Description = "The most messages to look at.", DefaultValueFactory = _ => 10 };
        var type = new Option<string[]>("--type") { Description = "Only messages of these CloudEvents types (repeatable)." };
        var source = new Option<string?>("--source") { Description = "Only messages from this CloudEvents source." };
        var since = new Option<DateTimeOffset?>("--since") { Description = "Only messages sent at or after this time (ISO 8601)." };
        var until = new Option<DateTimeOffset?>("--until") { Description = "Only messages sent before this time (ISO 8601)." };
        var buckets = new Option<string[]>("--payload-bucket") { Description = "Fetch claim-checked payloads from this bucket (repeatable); without it pointers are shown as they are." };
        var s3Endpoint = new Option<string?>("--s3-endpoint-url") { Description = "S3's endpoint, when it is not --endpoint-url (a local S3)." };
        var registered = new Option<string[]>("--registered-type") { Description = "A CloudEvents type the consumer registers (repeatable): any other type is reported as unregistered." };
        var format = new Option<string>("--output", "-o") { Description = "text (for people) or json (for scripts).", DefaultValueFactory = _ => "text" };
        format.AcceptOnlyFromAmong("text", "json");
        var command = new Command(name, description) { queue, max, type, source, since, until, buckets, s3Endpoint, format };
        if (why)
        {
            command.Options.Add(registered);
        }

        command.SetAction(async (parsed, cancellationToken) =>
        {
            ToolSettings settings = Settings(parsed, parsed.GetValue(format) == "json", parsed.GetValue(s3Endpoint));
            var filter = new MessageFilter(parsed.GetValue(type) ?? [], parsed.GetValue(source), parsed.GetValue(since), parsed.GetValue(until));
            using var session = new ToolSession(settings, [parsed.GetValue(queue)!], parsed.GetValue(buckets) ?? []);
            if (await session.MaxReceiveCountAsync(parsed.GetValue(queue)!, cancellationToken).ConfigureAwait(false) is { } limit)
            {
                await error.WriteLineAsync($"Note: {parsed.GetValue(queue)} dead-letters after {limit} receives, and looking counts as one: a message received {limit} times moves to its dead-letter queue.").ConfigureAwait(false);
            }

            List<DecodedMessage> messages = await session.PeekAsync(parsed.GetValue(queue)!, Math.Max(1, parsed.GetValue(max)), filter, cancellationToken).ConfigureAwait(false);
            var report = new Report(output, settings.Json);
            if (why)
            {
                await report.WhyAsync(messages, parsed.GetValue(registered) ?? []).ConfigureAwait(false);
            }
            else
            {
                await report.PeekAsync(messages).ConfigureAwait(false);
            }

            return 0;
        });
        return command;
    }
}
