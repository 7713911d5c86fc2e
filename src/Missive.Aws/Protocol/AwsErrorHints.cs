using System;

namespace Missive.Aws.Protocol;

/// <summary>
/// What an operator should check for the AWS error codes that no retry clears, and which codes those are.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>A missing queue, topic or event bus: its name, the account and region the transport signs for, the
/// configured URLs and ARNs.</item>
/// <item>Credentials AWS refuses (an unknown key, a signature that does not match, an expired token): which source the
/// credentials came from, never the credentials themselves.</item>
/// <item>A permission missing: the IAM action and the resource to grant it on.</item>
/// <item>A KMS key refused (an encrypted queue or topic): the key's state and the two KMS permissions.</item>
/// </list>
/// </remarks>
internal static class AwsErrorHints
{
    /// <summary>Gets whether a failure with this code will not clear by retrying: an operator must act.</summary>
    public static bool IsPersistent(string? code) => Kind(code) != Family.None;

    /// <summary>What to check for a failure with this code (and, for a refused parameter, this message), or <c>null</c> for one that needs no hint.</summary>
    /// <param name="code">The AWS error code.</param>
    /// <param name="site">Where the call went.</param>
    /// <param name="operation">The operation (for example <c>SendMessageBatch</c>), for the IAM action.</param>
    /// <param name="message">What the service said, or <c>null</c>.</param>
    public static string? For(string? code, AwsCallSite site, string operation, string? message = null)
        => message is not null && message.Contains("ContentBasedDeduplication", StringComparison.Ordinal) && message.Contains("MessageDeduplicationId", StringComparison.Ordinal)
            ? $"{site.Resource ?? "The FIFO queue or topic"} deduplicates only by id, and this message had none: give one (PublishOptions.MessageDeduplicationId, or AddFifoIds with a deduplication id), or turn on the queue's or topic's ContentBasedDeduplication."
            : Kind(code) switch
        {
            Family.MissingResource => $"Check that {site.Resource ?? "the resource"} exists in the account and region the transport signs for ({site.Region}): its name, the region (AWS_REGION, the profile, or Region in the Missive.Aws options), and the URLs and ARNs configured in AwsTransportOptions (QueueUrls, TopicArns).",
            Family.UnknownKey => $"AWS does not know the access key (credentials from {site.CredentialSource}): a deleted or mistyped key, a key of another partition, or the endpoint of another partition ({site.Endpoint}).",
            Family.BadSignature => $"The signature did not match: the secret key does not belong to the access key (credentials from {site.CredentialSource}), or something between here and {site.Endpoint} changed the request.",
            Family.Expired => $"The credentials' session token has expired (credentials from {site.CredentialSource}): renew them, or use a provider that renews them (a role, a profile with a source).",
            Family.ClockOff => $"The request's time was refused even after the transport corrected its clock: check this machine's clock and the credentials (from {site.CredentialSource}).",
            Family.AccessDenied => $"The identity of the credentials (from {site.CredentialSource}) may not call {IamAction(site, operation)} on {site.Resource ?? "the resource"}: grant it that action (for an encrypted queue or topic, kms:GenerateDataKey and kms:Decrypt on its key too).",
            Family.Kms => $"The KMS key of {site.Resource ?? "the resource"} refused the call: check that the key exists and is enabled, and that the identity of the credentials (from {site.CredentialSource}) has kms:GenerateDataKey (to send) and kms:Decrypt (to receive) on it.",
            _ => null,
        };

    /// <summary>The IAM action a call needs: the service's prefix and the operation, a batch call needing its single call's action.</summary>
    public static string IamAction(AwsCallSite site, string operation)
    {
        string action = operation switch
        {
            "SendMessageBatch" => "SendMessage",
            "DeleteMessageBatch" => "DeleteMessage",
            "ChangeMessageVisibilityBatch" => "ChangeMessageVisibility",
            "PublishBatch" => "Publish",
            _ => operation,
        };
        return site.IamPrefix + ":" + action;
    }

    private static Family Kind(string? code)
    {
        string bare = AwsErrorCodes.Bare(code);
        if (bare.StartsWith("KMS.", StringComparison.Ordinal) || bare.StartsWith("Kms", StringComparison.OrdinalIgnoreCase))
        {
            // SQS KmsDisabled, SNS KMSAccessDenied, KMS.DisabledException...; throttling clears by itself.
            return bare.Contains("Throttl", StringComparison.Ordinal) ? Family.None : Family.Kms;
        }

        return bare[(bare.LastIndexOf('.') + 1)..] switch // AWS.SimpleQueueService.NonExistentQueue as NonExistentQueue
        {
            "NonExistentQueue" or "QueueDoesNotExist" or "NotFound" or "NotFoundException" or "ResourceNotFoundException" => Family.MissingResource,
            "InvalidClientTokenId" or "UnrecognizedClientException" or "InvalidAccessKeyId" => Family.UnknownKey,
            "SignatureDoesNotMatch" or "InvalidSignatureException" or "IncompleteSignature" or "IncompleteSignatureException" => Family.BadSignature,
            "ExpiredToken" or "ExpiredTokenException" => Family.Expired,
            "RequestExpired" => Family.ClockOff,
            "AccessDenied" or "AccessDeniedException" or "AuthorizationError" or "AuthorizationErrorException" => Family.AccessDenied,
            _ => Family.None,
        };
    }

    private enum Family
    {
        None,
        MissingResource,
        UnknownKey,
        BadSignature,
        Expired,
        ClockOff,
        AccessDenied,
        Kms,
    }
}
