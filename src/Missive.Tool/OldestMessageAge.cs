using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using System.Xml;
using Amazon;
using Amazon.Runtime;
using Missive.Aws;

namespace Missive.Tool;

/// <summary>
/// The age of each queue's oldest message, which SQS's own API does not give: CloudWatch's
/// <c>ApproximateAgeOfOldestMessage</c> (namespace <c>AWS/SQS</c>, dimension <c>QueueName</c>), its latest one-minute
/// maximum over the last quarter of an hour, read with GetMetricData (CloudWatch's query protocol, signed as the SQS
/// calls are). No data (a queue idle for hours, a service without CloudWatch) is <c>null</c>, with the reason.
/// </summary>
internal static class OldestMessageAge
{
    public static async Task<(Dictionary<string, TimeSpan?> Ages, string? Unavailable)> ReadAsync(IReadOnlyList<string> queueNames, AWSCredentials credentials, RegionEndpoint region, Uri? endpoint, CancellationToken cancellationToken)
    {
        var ages = new Dictionary<string, TimeSpan?>(StringComparer.Ordinal);
        using var http = new HttpClient(AwsTransport.CreateSigningHandler(credentials, region, "monitoring", new SocketsHttpHandler())) { Timeout = TimeSpan.FromSeconds(30) };
        DateTimeOffset end = DateTimeOffset.UtcNow;
        var form = new List<KeyValuePair<string, string>>
        {
            new("Action", "GetMetricData"),
            new("Version", "2010-08-01"),
            new("StartTime", end.AddMinutes(-15).ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture)),
            new("EndTime", end.ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture)),
            new("ScanBy", "TimestampDescending"),
        };
        for (int i = 0; i < queueNames.Count; i++)
        {
            string query = $"MetricDataQueries.member.{i + 1}.";
            form.Add(new(query + "Id", "q" + i.ToString(CultureInfo.InvariantCulture)));
            form.Add(new(query + "MetricStat.Metric.Namespace", "AWS/SQS"));
            form.Add(new(query + "MetricStat.Metric.MetricName", "ApproximateAgeOfOldestMessage"));
            form.Add(new(query + "MetricStat.Metric.Dimensions.member.1.Name", "QueueName"));
            form.Add(new(query + "MetricStat.Metric.Dimensions.member.1.Value", queueNames[i]));
            form.Add(new(query + "MetricStat.Period", "60"));
            form.Add(new(query + "MetricStat.Stat", "Maximum"));
            ages[queueNames[i]] = null;
        }

        Uri url = endpoint ?? new Uri($"https://monitoring.{region.SystemName}.amazonaws.com/");
        string answer;
        try
        {
            using var content = new FormUrlEncodedContent(form);
            using HttpResponseMessage response = await http.PostAsync(url, content, cancellationToken).ConfigureAwait(false);
            answer = await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false);
            if (!response.IsSuccessStatusCode)
            {
                return (ages, $"CloudWatch GetMetricData at {url.GetLeftPart(UriPartial.Authority)} answered {(int)response.StatusCode}{ErrorOf(answer)}");
            }
        }
        catch (HttpRequestException e)
        {
            return (ages, $"CloudWatch at {url.GetLeftPart(UriPartial.Authority)} could not be reached ({e.Message})");
        }

        try
        {
            foreach ((string id, double seconds) in LatestValues(answer))
            {
                if (int.TryParse(id.AsSpan(1), NumberStyles.None, CultureInfo.InvariantCulture, out int index) && index < queueNames.Count)
                {
                    ages[queueNames[index]] = TimeSpan.FromSeconds(seconds);
                }
            }
        }
        catch (XmlException)
        {
            return (ages, "CloudWatch's answer to GetMetricData is not XML");
        }

        return (ages, null);
    }

    /// <summary>Each result's id and first value (the latest, scanned by descending time), from the elements' path.</summary>
    private static List<(string Id, double Value)> LatestValues(string xml)
    {
        var found = new List<(string, double)>();
        var path = new List<string>();
        string? id = null;
        double? first = null;
        using var reader = XmlReader.Create(new StringReader(xml), new XmlReaderSettings { DtdProcessing = DtdProcessing.Prohibit, XmlResolver = null });
        while (reader.Read())
        {
            switch (reader.NodeType)
            {
                case XmlNodeType.Element when !reader.IsEmptyElement:
                    path.Add(reader.LocalName);
                    if (EndsWith(path, "MetricDataResults", "member"))
                    {
                        (id, first) = (null, null);
                    }

                    break;
                case XmlNodeType.Text when EndsWith(path, "MetricDataResults", "member", "Id"):
                    id = reader.Value;
                    break;
                case XmlNodeType.Text when EndsWith(path, "MetricDataResults", "member", "Values", "member") && first is null:
                    first = double.Parse(reader.Value, NumberStyles.Float, CultureInfo.InvariantCulture);
                    break;
                case XmlNodeType.EndElement:
                    if (EndsWith(path, "MetricDataResults", "member") && id is not null && first is { } value)
                    {
                        found.Add((id, value));
                    }

                    path.RemoveAt(path.Count - 1);
                    break;
            }
        }

        return found;
    }

    private static bool EndsWith(List<string> path, params string[] tail)
    {
        if (path.Count < tail.Length)
        {
            return false;
        }

        for (int i = 0; i < tail.Length; i++)
        {
            if (path[path.Count - tail.Length + i] != tail[i])
            {
                return false;
            }
        }

        return true;
    }

    private static string ErrorOf(string answer)
    {
        int code = answer.IndexOf("<Code>", StringComparison.Ordinal), message = answer.IndexOf("<Message>", StringComparison.Ordinal);
        var text = new StringBuilder();
        if (code >= 0)
        {
            text.Append(": ").Append(answer.AsSpan(code + 6, Math.Max(0, answer.IndexOf("</Code>", code, StringComparison.Ordinal) - code - 6)));
        }

        if (message >= 0)
        {
            text.Append(": ").Append(answer.AsSpan(message + 9, Math.Max(0, answer.IndexOf("</Message>", message, StringComparison.Ordinal) - message - 9)));
        }

        return text.ToString();
    }
}
