namespace Missive.Aws.Protocol;

/// <summary>How a service shapes its errors.</summary>
internal enum AwsProtocol
{
    /// <summary>AWS JSON 1.0 and 1.1: a JSON body with <c>__type</c> and <c>message</c> (SQS, EventBridge).</summary>
    Json,

    /// <summary>The Query protocol: an XML <c>ErrorResponse</c> (SNS).</summary>
    Query,
}
