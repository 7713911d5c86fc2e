using System;
using System.Collections.Generic;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Missive.HealthChecks;

/// <summary>How <c>AddMessageBusChecks</c> names and tags the bus's checks, and what a failing one reports.</summary>
public sealed class MessageBusHealthCheckOptions
{
    /// <summary>Gets or sets the start of every check's name: <c>{prefix}-poller-{queue}</c>, <c>{prefix}-poller-{queue}-live</c>, <c>{prefix}-publishing</c>. Default <c>missive</c>.</summary>
    public string NamePrefix { get; set; } = "missive";

    /// <summary>Gets the tags of the readiness checks (each poller's receiving, publishing). Default <c>ready</c> and <c>missive</c>.</summary>
    public ISet<string> ReadyTags { get; } = new HashSet<string>(StringComparer.Ordinal) { "ready", "missive" };

    /// <summary>Gets the tags of the liveness checks (each poller's loops). Default <c>live</c> and <c>missive</c>.</summary>
    public ISet<string> LiveTags { get; } = new HashSet<string>(StringComparer.Ordinal) { "live", "missive" };

    /// <summary>Gets or sets the status a failing check reports (and a check that throws). Default <see cref="HealthStatus.Unhealthy"/>.</summary>
    public HealthStatus FailureStatus { get; set; } = HealthStatus.Unhealthy;

    /// <summary>Gets or sets how long a check may take, or <c>null</c> for no limit of its own. The checks read state in memory.</summary>
    public TimeSpan? Timeout { get; set; }

    /// <summary>
    /// Gets or sets how long a failed publish counts against publishing's readiness when none follows it: a service
    /// that publishes only in response to traffic would otherwise stay failing until its next publish. Default 5 minutes.
    /// </summary>
    public TimeSpan PublishingFailureWindow { get; set; } = TimeSpan.FromMinutes(5);
}
