using Missive.Offload;

namespace Missive.Tests.Offload;

/// <summary>
/// The pointer body of AWS's extended clients. The vectors are built from the clients' documented format as their
/// sources write it: Java's <c>PayloadS3Pointer</c> serialized by Jackson (amazon-sqs-java-extended-client-lib from
/// 1.1.0, with payload-offloading-java-common-lib-for-aws: compact, class name then bucket and key), Java 1.0.x's
/// <c>com.amazon.sqs.javamessaging.MessageS3Pointer</c>, and Python's port (amazon-sqs-python-extended-client-lib:
/// <c>json.dumps</c> with its default separators <c>", "</c> and <c>": "</c> and <c>ensure_ascii</c>, so non-ASCII
/// escaped). Keys are lowercase UUIDs, as every client makes them.
/// </summary>
public sealed class PayloadPointerTests
{
    private const string Key = "3f1c2a9e-5d6b-4c8e-9f0a-1b2c3d4e5f60";

    public static TheoryData<string, string, string> ClientBodies => new()
    {
        { "java 1.1.0+", "[\"software.amazon.payloadoffloading.PayloadS3Pointer\",{\"s3BucketName\":\"orders-payloads\",\"s3Key\":\"" + Key + "\"}]", Key },
        { "java 1.0.x", "[\"com.amazon.sqs.javamessaging.MessageS3Pointer\",{\"s3BucketName\":\"orders-payloads\",\"s3Key\":\"" + Key + "\"}]", Key },
        { "python", "[\"software.amazon.payloadoffloading.PayloadS3Pointer\", {\"s3BucketName\": \"orders-payloads\", \"s3Key\": \"" + Key + "\"}]", Key },
        { "python, legacy, a prefixed key with non-ASCII escaped", "[\"com.amazon.sqs.javamessaging.MessageS3Pointer\", {\"s3BucketName\": \"orders-payloads\", \"s3Key\": \"caf\\u00e9/" + Key + "\"}]", "café/" + Key },
        { "members in the other order, with whitespace around", "  [\"software.amazon.payloadoffloading.PayloadS3Pointer\",{\"s3Key\":\"" + Key + "\",\"s3BucketName\":\"orders-payloads\"}]\n", Key },
    };

    [Theory]
    [MemberData(nameof(ClientBodies))]
    public void WhatTheExtendedClientsWrite_IsRead(string client, string body, string key)
    {
        Assert.True(PayloadPointer.TryRead(System.Text.Encoding.UTF8.GetBytes(body), out PayloadLocation location), client);
        Assert.Equal(new PayloadLocation("orders-payloads", key), location);
    }

    [Theory]
    [InlineData("[\"some.other.Pointer\",{\"s3BucketName\":\"b\",\"s3Key\":\"k\"}]")]
    [InlineData("[\"software.amazon.payloadoffloading.PayloadS3Pointer\",{\"s3BucketName\":\"b\"}]")]
    [InlineData("[\"software.amazon.payloadoffloading.PayloadS3Pointer\",{\"s3BucketName\":\"b\",\"s3Key\":\"\"}]")]
    [InlineData("[\"software.amazon.payloadoffloading.PayloadS3Pointer\",{\"s3BucketName\":\"b\",\"s3Key\":7}]")]
    [InlineData("[\"software.amazon.payloadoffloading.PayloadS3Pointer\",{\"s3BucketName\":\"b\",\"s3Key\":\"k\"},1]")]
    [InlineData("[\"software.amazon.payloadoffloading.PayloadS3Pointer\",{\"s3BucketName\":\"b\",\"s3Key\":\"k\"}")]
    [InlineData("{\"specversion\":\"1.0\",\"id\":\"1\"}")]
    [InlineData("not json")]
    public void AnythingElse_IsNoPointer(string body)
        => Assert.False(PayloadPointer.TryRead(System.Text.Encoding.UTF8.GetBytes(body), out _));

    [Fact]
    public void WhatMissiveWrites_IsJavasCompactBody_ByteForByte()
    {
        var location = new PayloadLocation("orders-payloads", Key);

        Assert.Equal("[\"software.amazon.payloadoffloading.PayloadS3Pointer\",{\"s3BucketName\":\"orders-payloads\",\"s3Key\":\"" + Key + "\"}]", PayloadPointer.Write(location, PayloadPointer.ClassName));
        Assert.Equal("[\"com.amazon.sqs.javamessaging.MessageS3Pointer\",{\"s3BucketName\":\"orders-payloads\",\"s3Key\":\"" + Key + "\"}]", PayloadPointer.Write(location, PayloadPointer.LegacyClassName));
    }

    [Theory]
    [InlineData("3f1c2a9e", true)]
    [InlineData("prefix/3f1c2a9e", true)]
    [InlineData("../other-bucket/secret", false)]
    [InlineData("a/./b", false)]
    [InlineData("a/..", false)]
    [InlineData("", false)]
    [InlineData("line\nbreak", false)]
    public void OnlyKeysThatStayInTheirBucket_AreFetched(string key, bool safe)
        => Assert.Equal(safe, new PayloadLocation("orders-payloads", key).HasSafeKey);

    [Theory]
    [InlineData("{\"specversion\":\"1.0\",\"dataref\":\"s3://b/k/x\"}", true, "b", "k/x")]
    [InlineData("{\"specversion\":\"1.0\",\"dataref\":\"https://example.com/data\"}", false, "", "")] // not Missive's to fetch
    [InlineData("{\"specversion\":\"1.0\",\"dataref\":\"s3://b/k\",\"data\":{}}", false, "", "")] // the data is there
    [InlineData("{\"specversion\":\"1.0\",\"dataref\":\"s3://b/\"}", false, "", "")]
    [InlineData("{\"specversion\":\"1.0\",\"dataref\":\"s3://\"}", false, "", "")]
    public void OnlyAnS3DataRef_WithoutData_IsResolved(string envelope, bool resolved, string bucket, string key)
    {
        Assert.Equal(resolved, DataRef.TryRead(System.Text.Encoding.UTF8.GetBytes(envelope), out PayloadLocation location));
        if (resolved)
        {
            Assert.Equal(new PayloadLocation(bucket, key), location);
        }
    }

    [Theory]
    [InlineData("application/json", "{\"orderId\":\"A-1\"}", "\"data\":{\"orderId\":\"A-1\"}")]
    [InlineData("text/plain", "\"caf\\u00e9\"", "\"data\":\"café\"")] // escaped only where JSON needs it
    [InlineData("application/octet-stream", null, "\"data_base64\":\"AQID\"")]
    public void TheDataComesBack_AsItWasWritten_ByItsContentType(string contentType, string? data, string expected)
    {
        string member = data is null ? "\"data_base64\":\"AQID\"" : "\"data\":" + data;
        byte[] envelope = System.Text.Encoding.UTF8.GetBytes("{\"specversion\":\"1.0\",\"id\":\"1\",\"datacontenttype\":\"" + contentType + "\"," + member + "}");

        Assert.True(DataRef.TrySplit(envelope, out DataRefSplit? split));
        using (split)
        {
            byte[] without = split.EnvelopeFor(new PayloadLocation("b", "k"));
            string back = System.Text.Encoding.UTF8.GetString(DataRef.WithData(without, split.Data));

            Assert.Contains(expected, back, System.StringComparison.Ordinal);
            Assert.Contains("\"dataref\":\"s3://b/k\"", back, System.StringComparison.Ordinal);
            Assert.DoesNotContain("\"data\"", System.Text.Encoding.UTF8.GetString(without), System.StringComparison.Ordinal);
        }
    }
}
