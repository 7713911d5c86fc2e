using System;
using System.Collections.Generic;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Aws.Protocol;

/// <summary>A service's limits on one batch call.</summary>
/// <param name="MaxEntries">The most entries.</param>
/// <param name="MaxPayload">The most bytes of the entries together, as the service counts them.</param>
/// <param name="MaxEntrySize">The most bytes of one entry, as the service counts them.</param>
internal readonly record struct BatchLimits(int MaxEntries, long MaxPayload, long MaxEntrySize = long.MaxValue)
{
    /// <summary>These limits with another largest entry.</summary>
    public BatchLimits WithMaxEntrySize(long maxEntrySize) => this with { MaxEntrySize = maxEntrySize };
}
