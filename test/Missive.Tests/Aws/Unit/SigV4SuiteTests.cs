using System;
using System.Collections.Generic;
using System.Linq;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Threading.Tasks;
using Amazon;
using Amazon.Runtime;
using Missive.Aws;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// AWS's published Signature Version 4 test suite (https://docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html:
/// credentials AKIDEXAMPLE, region us-east-1, service "service", 2015-08-30T12:36:00Z) against the handler
/// Missive.Aws signs with, and against a reference computation written from the SigV4 steps.
/// </summary>
/// <remarks>
/// The handler signs exactly the suite's headers for these requests (host, x-amz-date, and content-type when there is a
/// body), so the signature it sends must be the published one, byte for byte.
/// </remarks>
public sealed class SigV4SuiteTests
{
    private const string AccessKey = "AKIDEXAMPLE";
    private const string SecretKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    private const string AmzDate = "20150830T123600Z";
    private static readonly DateTime SuiteTime = new(2015, 8, 30, 12, 36, 0, DateTimeKind.Utc);

    public static TheoryData<string, string, string?, string?, string> Vectors => new()
    {
        { "get-vanilla", "GET", null, null, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
        { "post-vanilla", "POST", null, null, "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b" },
        { "post-x-www-form-urlencoded", "POST", "application/x-www-form-urlencoded", "Param1=value1", "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a" },
    };

    [Theory]
    [MemberData(nameof(Vectors))]
    public void Reference_ReproducesThePublishedSignature(string vector, string method, string? contentType, string? body, string published)
    {
        var headers = new SortedDictionary<string, string>(StringComparer.Ordinal) { ["host"] = "example.amazonaws.com", ["x-amz-date"] = AmzDate };
        if (contentType is not null)
        {
            headers["content-type"] = contentType;
        }

        Assert.True(Signature(method, headers, Hex(SHA256.HashData(Encoding.UTF8.GetBytes(body ?? string.Empty)))) == published, vector);
    }

    [Theory]
    [MemberData(nameof(Vectors))]
    public async Task Handler_SendsThePublishedSignature(string vector, string method, string? contentType, string? body, string published)
    {
        var recorder = new RecordingHandler();
        using var client = new HttpClient(AwsTransport.CreateSigningHandler(new BasicAWSCredentials(AccessKey, SecretKey), RegionEndpoint.USEast1, "service", recorder, SuiteTime));
        using var request = new HttpRequestMessage(new HttpMethod(method), "https://example.amazonaws.com/");
        if (body is not null)
        {
            request.Content = new StringContent(body);
            request.Content.Headers.ContentType = new(contentType!);
        }

        using HttpResponseMessage response = await client.SendAsync(request);

        RecordedRequest sent = Assert.Single(recorder.Requests);
        string authorization = sent.Headers["Authorization"];
        Assert.Equal(AmzDate, sent.Headers["X-Amz-Date"]);
        Assert.Equal(
            $"AWS4-HMAC-SHA256 Credential={AccessKey}/20150830/us-east-1/service/aws4_request, SignedHeaders={(contentType is null ? "" : "content-type;")}host;x-amz-date, Signature={published}",
            authorization);
        Assert.False(sent.Headers.ContainsKey("x-amz-content-sha256"), vector);
    }

    [Fact]
    public async Task Handler_SignsTheSessionTokenAndTarget_AsTheReferenceDoes()
    {
        var recorder = new RecordingHandler();
        using var client = new HttpClient(AwsTransport.CreateSigningHandler(new SessionAWSCredentials(AccessKey, SecretKey, "session/token+=="), RegionEndpoint.USEast1, "service", recorder, SuiteTime));
        using var request = new HttpRequestMessage(HttpMethod.Post, "http://127.0.0.1:4566/") { Content = new StringContent("{\"a\":1}") };
        request.Content.Headers.ContentType = new("application/x-amz-json-1.0");
        request.Headers.TryAddWithoutValidation("X-Amz-Target", "AmazonSQS.SendMessage");

        using HttpResponseMessage response = await client.SendAsync(request);

        RecordedRequest sent = Assert.Single(recorder.Requests);
        Assert.Equal("session/token+==", sent.Headers["X-Amz-Security-Token"]);
        var headers = new SortedDictionary<string, string>(StringComparer.Ordinal)
        {
            ["content-type"] = "application/x-amz-json-1.0",
            ["host"] = "127.0.0.1:4566",
            ["x-amz-date"] = AmzDate,
            ["x-amz-security-token"] = "session/token+==",
            ["x-amz-target"] = "AmazonSQS.SendMessage",
        };
        string expected = Signature("POST", headers, Hex(SHA256.HashData("{\"a\":1}"u8)));
        Assert.EndsWith($"SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature={expected}", sent.Headers["Authorization"], StringComparison.Ordinal);
    }

    [Fact]
    public async Task Handler_EncodesACharacterOutsideTheBasicMultilingualPlane_AsTheFourBytesOfItsUtf8()
    {
        // U+1F600 is one code point, two UTF-16 units, four UTF-8 bytes (F0 9F 98 80): SigV4 percent-encodes those bytes
        // in the canonical query. Encoding each UTF-16 unit alone would give two replacement characters (EF BF BD twice)
        // and a signature the service refuses.
        var recorder = new RecordingHandler();
        using var client = new HttpClient(AwsTransport.CreateSigningHandler(new BasicAWSCredentials(AccessKey, SecretKey), RegionEndpoint.USEast1, "service", recorder, SuiteTime));
        using var request = new HttpRequestMessage(HttpMethod.Get, "https://example.amazonaws.com/?Note=%F0%9F%98%80");

        using HttpResponseMessage response = await client.SendAsync(request);

        RecordedRequest sent = Assert.Single(recorder.Requests);
        var headers = new SortedDictionary<string, string>(StringComparer.Ordinal)
        {
            ["host"] = "example.amazonaws.com",
            ["x-amz-date"] = AmzDate,
        };
        string expected = Signature("GET", headers, Hex(SHA256.HashData([])), canonicalQuery: "Note=%F0%9F%98%80");
        Assert.EndsWith($"SignedHeaders=host;x-amz-date, Signature={expected}", sent.Headers["Authorization"], StringComparison.Ordinal);
    }

    /// <summary>SigV4 from its published steps: canonical request, string to sign, derived key, HMAC.</summary>
    private static string Signature(string method, SortedDictionary<string, string> headers, string payloadHash, string canonicalQuery = "")
    {
        string canonicalHeaders = string.Concat(headers.Select(h => $"{h.Key}:{h.Value.Trim()}\n"));
        string canonicalRequest = $"{method}\n/\n{canonicalQuery}\n{canonicalHeaders}\n{string.Join(';', headers.Keys)}\n{payloadHash}";
        string scope = "20150830/us-east-1/service/aws4_request";
        string stringToSign = $"AWS4-HMAC-SHA256\n{AmzDate}\n{scope}\n{Hex(SHA256.HashData(Encoding.UTF8.GetBytes(canonicalRequest)))}";
        byte[] key = Encoding.UTF8.GetBytes("AWS4" + SecretKey);
        foreach (string part in new[] { "20150830", "us-east-1", "service", "aws4_request" })
        {
            key = HMACSHA256.HashData(key, Encoding.UTF8.GetBytes(part));
        }

        return Hex(HMACSHA256.HashData(key, Encoding.UTF8.GetBytes(stringToSign)));
    }

    private static string Hex(byte[] bytes) => Convert.ToHexStringLower(bytes);

    private static string Between(string text, string start, string end)
    {
        int from = text.IndexOf(start, StringComparison.Ordinal) + start.Length;
        return text[from..text.IndexOf(end, from, StringComparison.Ordinal)];
    }
}
