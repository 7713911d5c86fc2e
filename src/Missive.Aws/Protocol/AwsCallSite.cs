using System;

namespace Missive.Aws.Protocol;

/// <summary>Where a call went, for its errors: the service, its endpoint, the signing region, where the credentials came from, the resource.</summary>
/// <param name="Service">The service's name (SQS, SNS, EventBridge).</param>
/// <param name="IamPrefix">The service's prefix in IAM actions (sqs, sns, events).</param>
/// <param name="Endpoint">The endpoint.</param>
/// <param name="Region">The region the requests are signed for.</param>
/// <param name="CredentialSource">Where the credentials came from (never the credentials).</param>
/// <param name="Resource">The queue, topic or bus, as configured and as resolved (for example <c>queue 'billing' (https://…/billing)</c>), or <c>null</c>.</param>
internal readonly record struct AwsCallSite(string Service, string IamPrefix, Uri Endpoint, string Region, string CredentialSource, string? Resource);
