using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Missive.Tests.Aws;
using Missive.Tests.Infrastructure;
using Missive.Tool;

namespace Missive.Tests.Tool;

/// <summary>
/// What the tool asks of services the local endpoint does not have, against an endpoint scripted as their API
/// references document the calls: an unfiltered <c>missive redrive</c> is SQS's own message move task
/// (StartMessageMoveTask for the dead-letter queue's ARN, and the target's with <c>--to</c>, the rate as its limit;
/// ListMessageMoveTasks polled until it completes; a failed task is a one-line error), and <c>missive stats</c> reads
/// the age of each queue's oldest message from CloudWatch (GetMetricData, its query protocol).
/// </summary>
[Collection(AwsEmulatorCollection.Name)] // it sets AWS variables of the process, as the emulator tests do: not beside them
public sealed class ScriptedServiceTests
{
    [Fact]
    public async Task AnUnfilteredRedrive_StartsSqssMoveTask_AndFollowsItToTheEnd()
    {
        using var sqs = new ScriptedSqs(["RUNNING:400", "COMPLETED:1000"]);

        (int exit, string output, string error) = await sqs.RunAsync("redrive", "orders-dlq", "--to", "orders", "--rate", "50");

        Assert.True(exit == 0, error);
        Assert.Contains("Moved 1000 from orders-dlq to orders by SQS's message move task.", output, StringComparison.Ordinal);
        Assert.Contains("moved 400 of 1000", error, StringComparison.Ordinal);
        using JsonDocument start = JsonDocument.Parse(sqs.Bodies["AmazonSQS.StartMessageMoveTask"][0]);
        Assert.Equal("arn:aws:sqs:eu-west-1:000000000000:orders-dlq", start.RootElement.GetProperty("SourceArn").GetString());
        Assert.Equal("arn:aws:sqs:eu-west-1:000000000000:orders", start.RootElement.GetProperty("DestinationArn").GetString());
        Assert.Equal(50, start.RootElement.GetProperty("MaxNumberOfMessagesPerSecond").GetInt32());
        Assert.Equal(2, sqs.Bodies["AmazonSQS.ListMessageMoveTasks"].Count);
        Assert.False(sqs.Bodies.ContainsKey("AmazonSQS.ReceiveMessage")); // nothing received by the tool
    }

    [Fact]
    public async Task AFailedMoveTask_IsOneLine_WithSqssReason()
    {
        using var sqs = new ScriptedSqs(["FAILED:10"]);

        (int exit, _, string error) = await sqs.RunAsync("redrive", "orders-dlq");

        Assert.Equal(1, exit);
        Assert.Contains("SQS's message move task failed after moving 10 of 1000: AWS.SimpleQueueService.NonExistentQueue.", error, StringComparison.Ordinal);
        using JsonDocument start = JsonDocument.Parse(sqs.Bodies["AmazonSQS.StartMessageMoveTask"][0]);
        Assert.False(start.RootElement.TryGetProperty("DestinationArn", out _)); // back to the queues they came from
    }

    [Fact]
    public async Task Stats_ShowsEachQueuesOldestMessageAge_FromCloudWatchsLatestMinute()
    {
        using var sqs = new ScriptedSqs([]);

        (int exit, string output, string error) = await sqs.RunAsync("stats", "orders", "orders-dlq");
        (int jsonExit, string json, _) = await sqs.RunAsync("stats", "orders", "orders-dlq", "-o", "json");

        Assert.True(exit == 0, error);
        Assert.Equal(0, jsonExit);
        string[] lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Contains("oldest", lines[0], StringComparison.Ordinal);
        Assert.Contains(" 3m 20s ", lines[1], StringComparison.Ordinal); // 200 s, the latest of its values
        Assert.Contains(" - ", lines[2], StringComparison.Ordinal); // no data for the dead-letter queue
        using JsonDocument rows = JsonDocument.Parse(json);
        Assert.Equal(200, rows.RootElement[0].GetProperty("oldestMessageAgeSeconds").GetDouble());
        Assert.False(rows.RootElement[1].TryGetProperty("oldestMessageAgeSeconds", out _));
        string query = Uri.UnescapeDataString(sqs.Bodies["GetMetricData"][0].Replace('+', ' '));
        foreach (string parameter in new[] { "Action=GetMetricData", "Version=2010-08-01", "MetricDataQueries.member.1.MetricStat.Metric.Namespace=AWS/SQS", "MetricDataQueries.member.1.MetricStat.Metric.MetricName=ApproximateAgeOfOldestMessage", "MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.1.Name=QueueName", "MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.1.Value=orders", "MetricDataQueries.member.2.MetricStat.Metric.Dimensions.member.1.Value=orders-dlq", "MetricDataQueries.member.1.MetricStat.Stat=Maximum", "ScanBy=TimestampDescending" })
        {
            Assert.Contains(parameter, query, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData(0, "-")]
    [InlineData(42, "42s")]
    [InlineData(200, "3m 20s")]
    [InlineData(18_120, "5h 02m")]
    [InlineData(187_200, "2d 04h")]
    public void AnAge_ReadsAsAnOperatorReadsIt(int seconds, string shown)
        => Assert.Equal(shown, StatsCommand.Age(seconds == 0 ? null : TimeSpan.FromSeconds(seconds)));

    /// <summary>SQS's JSON protocol for the calls a move makes and CloudWatch's query protocol for GetMetricData, on 127.0.0.1, answering as the API references show; it records each call's body by its target (or action).</summary>
    private sealed class ScriptedSqs : IDisposable
    {
        private readonly HttpListener _listener = new();
        private readonly Queue<string> _states;
        private readonly Task _serving;

        public ScriptedSqs(IEnumerable<string> states)
        {
            _states = new Queue<string>(states);
            int port = FreePort();
            Endpoint = $"http://127.0.0.1:{port}/";
            _listener.Prefixes.Add(Endpoint);
            _listener.Start();
            _serving = ServeAsync();
        }

        public string Endpoint { get; }

        public Dictionary<string, List<string>> Bodies { get; } = [];

        public async Task<(int Exit, string Output, string Error)> RunAsync(params string[] args)
        {
            var output = new StringWriter();
            var error = new StringWriter();
            using var credentials = new EnvironmentScope(("AWS_ACCESS_KEY_ID", "AKIDSCRIPTED"), ("AWS_SECRET_ACCESS_KEY", "scripted"));
            int exit = await ToolCommands.RunAsync([.. args, "--endpoint-url", Endpoint, "--region", "eu-west-1"], output, error).WaitAsync(TimeSpan.FromSeconds(60));
            return (exit, output.ToString(), error.ToString());
        }

        public void Dispose()
        {
            _listener.Stop();
            _listener.Close();
        }

        private async Task ServeAsync()
        {
            while (_listener.IsListening)
            {
                HttpListenerContext context;
                try
                {
                    context = await _listener.GetContextAsync();
                }
                catch (Exception e) when (e is HttpListenerException or ObjectDisposedException)
                {
                    return;
                }

                string body = await new StreamReader(context.Request.InputStream).ReadToEndAsync();
                string target = context.Request.Headers["X-Amz-Target"] ?? (body.StartsWith("Action=GetMetricData&", StringComparison.Ordinal) ? "GetMetricData" : "?");
                lock (Bodies)
                {
                    (Bodies.TryGetValue(target, out List<string>? list) ? list : Bodies[target] = []).Add(body);
                }

                string answer = target switch
                {
                    "AmazonSQS.GetQueueUrl" => $"{{\"QueueUrl\":\"{Endpoint}000000000000/{JsonDocument.Parse(body).RootElement.GetProperty("QueueName").GetString()}\"}}",
                    "AmazonSQS.GetQueueAttributes" => $"{{\"Attributes\":{{\"QueueArn\":\"arn:aws:sqs:eu-west-1:000000000000:{JsonDocument.Parse(body).RootElement.GetProperty("QueueUrl").GetString()!.Split('/')[^1]}\"}}}}",
                    "AmazonSQS.StartMessageMoveTask" => "{\"TaskHandle\":\"eyJ0YXNrSWQiOiI0OTE1NGYzMyJ9\"}",
                    "AmazonSQS.ListMessageMoveTasks" => Task(),
                    "GetMetricData" => MetricData,
                    _ => "{}",
                };
                context.Response.ContentType = target == "GetMetricData" ? "text/xml" : "application/x-amz-json-1.0";
                context.Response.Headers["x-amzn-RequestId"] = Guid.NewGuid().ToString();
                byte[] bytes = Encoding.UTF8.GetBytes(answer);
                await context.Response.OutputStream.WriteAsync(bytes);
                context.Response.Close();
            }
        }

        /// <summary>GetMetricData's answer (CloudWatch API reference): the first query's values, latest first; none for the second.</summary>
        private const string MetricData = """
            <GetMetricDataResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/">
              <GetMetricDataResult>
                <MetricDataResults>
                  <member>
                    <Timestamps><member>2026-12-02T09:04:00Z</member><member>2026-12-02T09:03:00Z</member></Timestamps>
                    <Label>ApproximateAgeOfOldestMessage</Label>
                    <Id>q0</Id>
                    <StatusCode>Complete</StatusCode>
                    <Values><member>200.0</member><member>140.0</member></Values>
                  </member>
                  <member>
                    <Timestamps/>
                    <Label>ApproximateAgeOfOldestMessage</Label>
                    <Id>q1</Id>
                    <StatusCode>Complete</StatusCode>
                    <Values/>
                  </member>
                </MetricDataResults>
                <Messages/>
              </GetMetricDataResult>
              <ResponseMetadata><RequestId>1f9c0a0e-5b1c-4a63-9b0a-0d8e7c6b5a41</RequestId></ResponseMetadata>
            </GetMetricDataResponse>
            """;

        private string Task()
        {
            string[] state = (_states.Count > 1 ? _states.Dequeue() : _states.Count == 1 ? _states.Peek() : "COMPLETED:0").Split(':');
            string failure = state[0] == "FAILED" ? ",\"FailureReason\":\"AWS.SimpleQueueService.NonExistentQueue\"" : string.Empty;
            return $"{{\"Results\":[{{\"TaskHandle\":\"eyJ0YXNrSWQiOiI0OTE1NGYzMyJ9\",\"Status\":\"{state[0]}\",\"SourceArn\":\"arn:aws:sqs:eu-west-1:000000000000:orders-dlq\",\"ApproximateNumberOfMessagesMoved\":{state[1]},\"ApproximateNumberOfMessagesToMove\":1000,\"StartedTimestamp\":1764661800000{failure}}}]}}";
        }

        private static int FreePort()
        {
            using var socket = new TcpListener(IPAddress.Loopback, 0);
            socket.Start();
            return ((IPEndPoint)socket.LocalEndpoint).Port;
        }
    }
}
