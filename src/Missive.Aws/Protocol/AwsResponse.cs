namespace Missive.Aws.Protocol;

/// <summary>A successful answer: its body and the request id the service gave it.</summary>
internal readonly record struct AwsResponse(byte[] Body, string? RequestId);
