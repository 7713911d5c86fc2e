using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Net.Http;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Amazon.Runtime;
using Missive.Aws;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Aws;

/// <summary>
/// The fauxqs SNS/SQS emulator (npm, written by others) behind the test proxy of tools/local-aws/emulator.mjs,
/// started once for the test run on 127.0.0.1 and free ports. The proxy recomputes every request's SigV4
/// signature with the AWS SDK for JavaScript's signer and refuses mismatches, injects faults on request,
/// and answers EventBridge calls (fauxqs has none) from a canned answer while recording them.
/// </summary>
public sealed class AwsEmulator : IAsyncDisposable
{
    public const string Region = "eu-west-1";
    public const string AccountId = "000000000000";
    public static readonly BasicAWSCredentials Credentials = new("AKIDMISSIVETEST", "missive/test/secret/key/0123456789abcdef");

    private static readonly Lazy<string?> s_unavailable = new(FindProblem);
    private readonly Process _process;
    private readonly HttpClient _http = new() { Timeout = TimeSpan.FromSeconds(30) };

    private AwsEmulator(Process process, Uri proxy, Uri fauxqs)
    {
        _process = process;
        Proxy = proxy;
        Fauxqs = fauxqs;
    }

    public static string Directory => Path.Combine(RepositoryPaths.Root, "tools", "local-aws");

    /// <summary>Why the emulator cannot run here, or <c>null</c> when it can.</summary>
    public static string? Unavailable => s_unavailable.Value;

    /// <summary>Whether tests that need it are skipped: only outside CI, and only when Node or npm cannot be had (in CI they run, and fail).</summary>
    public static bool ShouldSkip => Unavailable is not null && !string.Equals(Environment.GetEnvironmentVariable("CI"), "true", StringComparison.OrdinalIgnoreCase);

    /// <summary>The proxy's address: what the transport under test talks to.</summary>
    public Uri Proxy { get; }

    /// <summary>fauxqs's own address, for setting up queues and topics without signing.</summary>
    public Uri Fauxqs { get; }

    public static async Task<AwsEmulator> StartAsync()
    {
        if (Unavailable is { } problem)
        {
            throw new InvalidOperationException("The AWS emulator tests cannot run: " + problem);
        }

        var start = new ProcessStartInfo("node", "emulator.mjs")
        {
            WorkingDirectory = Directory,
            RedirectStandardInput = true, // the emulator exits when its standard input closes
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        Process process = Process.Start(start) ?? throw new InvalidOperationException("node did not start.");
        var errors = new StringBuilder();
        process.ErrorDataReceived += (_, e) => { lock (errors) { errors.AppendLine(e.Data); } };
        process.BeginErrorReadLine();
        Task<string?> line = process.StandardOutput.ReadLineAsync();
        if (await Task.WhenAny(line, Task.Delay(TimeSpan.FromSeconds(30))).ConfigureAwait(false) != line || line.Result is null)
        {
            process.Kill(entireProcessTree: true);
            throw new InvalidOperationException("The AWS emulator did not start: " + errors);
        }

        using JsonDocument ready = JsonDocument.Parse(line.Result);
        return new AwsEmulator(process, new Uri(ready.RootElement.GetProperty("proxy").GetString()!), new Uri(ready.RootElement.GetProperty("fauxqs").GetString()!));
    }

    /// <summary>Options for a transport that talks to the proxy with the test credentials.</summary>
    public AwsTransportOptions Options(Action<AwsTransportOptions>? configure = null)
    {
        var options = new AwsTransportOptions();
        Apply(options);
        configure?.Invoke(options);
        return options;
    }

    /// <summary>Points options at the proxy with the test credentials (for <c>UseAws(o => …)</c>).</summary>
    public void Apply(AwsTransportOptions options)
    {
        options.Region = Region;
        options.ServiceUrl = Proxy;
        options.Credentials = Credentials;
    }

    public AwsTransport CreateTransport(Action<AwsTransportOptions>? configure = null) => new(Options(configure));

    /// <summary>The AWS SDK's own SQS client, pointed at the proxy (it signs, and the proxy checks, as for the built-in client).</summary>
    public Amazon.SQS.AmazonSQSClient CreateSqsClient(int maxErrorRetry = 2, TimeSpan? timeout = null)
    {
        var config = new Amazon.SQS.AmazonSQSConfig { ServiceURL = Proxy.AbsoluteUri, AuthenticationRegion = Region, MaxErrorRetry = maxErrorRetry };
        if (timeout is { } attempt)
        {
            config.Timeout = attempt; // the SDK refuses null
        }

        return new(Credentials, config);
    }

    // ---- Control of the proxy ----

    public Task ResetAsync() => PostControlAsync("reset", "{}");

    /// <summary>Replaces the proxy's fault list: each fault fires on the next <see cref="Fault.Count"/> requests it matches.</summary>
    public Task SetFaultsAsync(params Fault[] faults)
    {
        var list = new JsonArray();
        foreach (Fault fault in faults)
        {
            var item = new JsonObject { ["kind"] = fault.Kind, ["count"] = fault.Count };
            if (fault.Status is { } status)
            {
                item["status"] = status;
            }

            if (fault.Code is { } code)
            {
                item["code"] = code;
            }

            if (fault.DelayMs is { } delay)
            {
                item["delayMs"] = delay;
            }

            if (fault.Match is { } match)
            {
                item["match"] = match;
            }

            if (fault.Every is { } every)
            {
                item["every"] = every;
            }

            if (fault.BodyContains is { } marker)
            {
                item["bodyContains"] = marker;
            }

            list.Add(item);
        }

        return PostControlAsync("faults", list.ToJsonString());
    }

    public Task SetEventBridgeAnswerAsync(string json) => PostControlAsync("eventbridge", json);

    public async Task<ProxyStats> StatsAsync()
    {
        using JsonDocument stats = await GetControlAsync("stats").ConfigureAwait(false);
        JsonElement root = stats.RootElement;
        return new ProxyStats(root.GetProperty("verified").GetInt32(), root.GetProperty("rejected").GetInt32(), root.GetProperty("faults").GetInt32(), root.GetProperty("forwarded").GetInt32(), root.GetProperty("skewed").GetInt32());
    }

    /// <summary>How many times each message body was sent to fauxqs and accepted (a send retried after its answer was lost counts twice).</summary>
    public async Task<Dictionary<string, int>> SentAsync()
    {
        using JsonDocument sent = await GetControlAsync("sent").ConfigureAwait(false);
        var counts = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (JsonProperty body in sent.RootElement.EnumerateObject())
        {
            counts[body.Name] = body.Value.GetInt32();
        }

        return counts;
    }

    /// <summary>The EventBridge requests the proxy answered, oldest first.</summary>
    public async Task<List<ProxyRequest>> CapturedAsync() => Requests(await GetControlAsync("captured").ConfigureAwait(false));

    /// <summary>The last signed requests the proxy saw, oldest first.</summary>
    public async Task<List<ProxyRequest>> RequestsAsync() => Requests(await GetControlAsync("requests").ConfigureAwait(false));

    // ---- Setup on fauxqs itself (unsigned: fauxqs does not check signatures) ----

    public async Task<string> CreateQueueAsync(string name, Dictionary<string, string>? attributes = null)
    {
        var attributeObject = new JsonObject();
        foreach ((string key, string value) in attributes ?? [])
        {
            attributeObject[key] = value;
        }

        using JsonDocument answer = await FauxqsJsonAsync("CreateQueue", new JsonObject { ["QueueName"] = name, ["Attributes"] = attributeObject }.ToJsonString()).ConfigureAwait(false);
        // The URL as a client of the proxy sees it (the proxy names queue URLs after its own address, as AWS does).
        return new Uri(Proxy, new Uri(answer.RootElement.GetProperty("QueueUrl").GetString()!).AbsolutePath).AbsoluteUri;
    }

    public static string QueueArn(string name) => $"arn:aws:sqs:{Region}:{AccountId}:{name}";

    public async Task<string> CreateTopicAsync(string name, Dictionary<string, string>? attributes = null)
    {
        var form = new List<KeyValuePair<string, string>> { new("Action", "CreateTopic"), new("Name", name) };
        int n = 0;
        foreach ((string key, string value) in attributes ?? [])
        {
            n++;
            form.Add(new($"Attributes.entry.{n}.key", key));
            form.Add(new($"Attributes.entry.{n}.value", value));
        }

        string xml = await FauxqsQueryAsync(form).ConfigureAwait(false);
        int start = xml.IndexOf("<TopicArn>", StringComparison.Ordinal) + "<TopicArn>".Length;
        return xml[start..xml.IndexOf("</TopicArn>", StringComparison.Ordinal)];
    }

    public Task SubscribeAsync(string topicArn, string queueName, bool raw = false)
    {
        var form = new List<KeyValuePair<string, string>> { new("Action", "Subscribe"), new("TopicArn", topicArn), new("Protocol", "sqs"), new("Endpoint", QueueArn(queueName)) };
        if (raw)
        {
            form.Add(new("Attributes.entry.1.key", "RawMessageDelivery"));
            form.Add(new("Attributes.entry.1.value", "true"));
        }

        return FauxqsQueryAsync(form);
    }

    /// <summary>Runs the AWS SDK for JavaScript (tools/local-aws/jsclient.mjs) against the proxy and returns its JSON answer.</summary>
    public async Task<JsonDocument> JsClientAsync(JsonObject command)
    {
        command["endpoint"] = Proxy.ToString().TrimEnd('/');
        command["region"] = Region;
        var start = new ProcessStartInfo("node") { WorkingDirectory = Directory, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add("jsclient.mjs");
        start.ArgumentList.Add(command.ToJsonString());
        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync().ConfigureAwait(false);
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"jsclient {command["op"]} failed: {await error.ConfigureAwait(false)}");
        }

        return JsonDocument.Parse(await output.ConfigureAwait(false));
    }

    public async ValueTask DisposeAsync()
    {
        _http.Dispose();
        try
        {
            _process.StandardInput.Close();
            if (!_process.WaitForExit(5000))
            {
                _process.Kill(entireProcessTree: true);
            }
        }
        catch (InvalidOperationException)
        {
            // already gone
        }

        _process.Dispose();
        await Task.CompletedTask.ConfigureAwait(false);
    }

    private async Task<JsonDocument> FauxqsJsonAsync(string operation, string body)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, Fauxqs) { Content = new StringContent(body, Encoding.UTF8) };
        request.Content.Headers.ContentType = new("application/x-amz-json-1.0");
        request.Headers.Add("X-Amz-Target", "AmazonSQS." + operation);
        using HttpResponseMessage response = await _http.SendAsync(request).ConfigureAwait(false);
        string text = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
        return response.IsSuccessStatusCode ? JsonDocument.Parse(text) : throw new InvalidOperationException($"fauxqs {operation}: {text}");
    }

    private async Task<string> FauxqsQueryAsync(List<KeyValuePair<string, string>> form)
    {
        form.Add(new("Version", "2010-03-31"));
        using HttpResponseMessage response = await _http.PostAsync(Fauxqs, new FormUrlEncodedContent(form)).ConfigureAwait(false);
        string text = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
        return response.IsSuccessStatusCode ? text : throw new InvalidOperationException($"fauxqs {form[0].Value}: {text}");
    }

    private async Task PostControlAsync(string path, string json)
    {
        using HttpResponseMessage response = await _http.PostAsync(new Uri(Proxy, "/__control/" + path), new StringContent(json, Encoding.UTF8, "application/json")).ConfigureAwait(false);
        response.EnsureSuccessStatusCode();
    }

    private async Task<JsonDocument> GetControlAsync(string path)
        => JsonDocument.Parse(await _http.GetStringAsync(new Uri(Proxy, "/__control/" + path)).ConfigureAwait(false));

    private static List<ProxyRequest> Requests(JsonDocument document)
    {
        using (document)
        {
            var list = new List<ProxyRequest>();
            foreach (JsonElement item in document.RootElement.EnumerateArray())
            {
                var headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
                foreach (JsonProperty header in item.GetProperty("headers").EnumerateObject())
                {
                    headers[header.Name] = header.Value.ValueKind == JsonValueKind.String ? header.Value.GetString()! : header.Value.GetRawText();
                }

                list.Add(new ProxyRequest(item.GetProperty("method").GetString()!, item.GetProperty("path").GetString()!, headers, item.GetProperty("body").GetString()!));
            }

            return list;
        }
    }

    /// <summary>
    /// Why the emulator cannot run, or <c>null</c> once it can: Node.js must be on the PATH (version 20 or later), and
    /// the emulator's npm packages are installed here with <c>npm ci</c> (pinned by its package-lock.json) when they
    /// are missing or older than the lock file, once per test run.
    /// </summary>
    private static string? FindProblem()
    {
        (int nodeExit, string nodeVersion) = RunTool("node", "--version", TimeSpan.FromSeconds(30));
        if (nodeExit != 0)
        {
            return "Node.js (node) is not on the PATH; install Node 20 or later to run the Missive.Aws emulator tests.";
        }

        if (!int.TryParse(nodeVersion.TrimStart('v').Split('.')[0], out int major) || major < 20)
        {
            return $"Node.js {nodeVersion.Trim()} is too old for the emulator (fauxqs 1.9.2 needs Node 20 or later).";
        }

        string installed = Path.Combine(Directory, "node_modules", ".package-lock.json");
        string locked = Path.Combine(Directory, "package-lock.json");
        if (File.Exists(Path.Combine(Directory, "node_modules", "fauxqs", "package.json")) && File.Exists(installed) && File.GetLastWriteTimeUtc(installed) >= File.GetLastWriteTimeUtc(locked))
        {
            return null;
        }

        (int npmExit, string npmOutput) = RunTool("npm", "ci --no-audit --no-fund", TimeSpan.FromMinutes(5));
        return npmExit switch
        {
            0 => null,
            -1 => "npm is not on the PATH (it comes with Node.js); it installs the emulator's packages (npm ci in tools/local-aws).",
            _ => $"'npm ci' in {Directory} failed (exit code {npmExit}): {Last(npmOutput, 600)}",
        };
    }

    /// <summary>Runs a tool in the emulator's folder; exit code -1 when it cannot be started or does not finish in time.</summary>
    private static (int ExitCode, string Output) RunTool(string tool, string arguments, TimeSpan timeout)
    {
        try
        {
            var start = new ProcessStartInfo(tool, arguments)
            {
                WorkingDirectory = Directory,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            using Process process = Process.Start(start) ?? throw new System.ComponentModel.Win32Exception();
            Task<string> output = process.StandardOutput.ReadToEndAsync();
            Task<string> error = process.StandardError.ReadToEndAsync();
            if (!process.WaitForExit(timeout))
            {
                process.Kill(entireProcessTree: true);
                return (-1, $"{tool} did not finish within {timeout}");
            }

            return (process.ExitCode, output.Result + error.Result);
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return (-1, $"{tool} could not be started");
        }
    }

    private static string Last(string text, int length) => text.Length <= length ? text.Trim() : "…" + text[^length..].Trim();
}

/// <summary>
/// A fault the proxy injects: <c>status</c> (an error answer, 500 by default), <c>throttle</c>, <c>drop</c> (the connection,
/// before forwarding), <c>dropResponse</c> (after forwarding: the call took effect, the caller never hears), <c>delay</c>
/// (then forwarded, even when the caller gave up), or <c>corruptBodyDigest</c> (the MD5OfBody of every received message
/// whose body holds <see cref="BodyContains"/> is spoiled).
/// </summary>
public sealed record Fault(string Kind, int Count, int? Status = null, string? Code = null, int? DelayMs = null, string? Match = null, int? Every = null, string? BodyContains = null);

/// <summary>What the proxy did: signatures verified and rejected, faults injected, requests forwarded, and requests refused as signed more than 15 minutes off its clock.</summary>
public readonly record struct ProxyStats(int Verified, int Rejected, int Faults, int Forwarded, int Skewed);

public sealed record ProxyRequest(string Method, string Path, Dictionary<string, string> Headers, string Body);

/// <summary>Shares one emulator among the tests of the collection.</summary>
public sealed class AwsEmulatorFixture : IAsyncLifetime
{
    private AwsEmulator? _emulator;

    public AwsEmulator Emulator => _emulator ?? throw new InvalidOperationException("The emulator did not start.");

    public async Task InitializeAsync()
    {
        if (!AwsEmulator.ShouldSkip)
        {
            _emulator = await AwsEmulator.StartAsync().ConfigureAwait(false);
        }
    }

    public async Task DisposeAsync()
    {
        if (_emulator is not null)
        {
            await _emulator.DisposeAsync().ConfigureAwait(false);
        }
    }
}

[CollectionDefinition(Name)]
public sealed class AwsEmulatorCollection : ICollectionFixture<AwsEmulatorFixture>
{
    public const string Name = "AWS emulator";
}

/// <summary>A fact that needs the emulator: skipped with the reason when Node or its packages are missing outside CI; in CI it runs (and fails) regardless.</summary>
public sealed class EmulatorFactAttribute : FactAttribute
{
    public EmulatorFactAttribute()
    {
        if (AwsEmulator.ShouldSkip)
        {
            Skip = "The AWS emulator is not available: " + AwsEmulator.Unavailable;
        }
    }
}

/// <summary>A theory that needs the emulator (see <see cref="EmulatorFactAttribute"/>).</summary>
public sealed class EmulatorTheoryAttribute : TheoryAttribute
{
    public EmulatorTheoryAttribute()
    {
        if (AwsEmulator.ShouldSkip)
        {
            Skip = "The AWS emulator is not available: " + AwsEmulator.Unavailable;
        }
    }
}
