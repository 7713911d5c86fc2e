using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>
/// A check that asks the service about the queues, topics and buses the bus uses (that they exist, that a FIFO queue
/// deduplicates as the publishers need), added by a transport as an opt-in (register it as a singleton).
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>It runs when the generic host starts, after the configuration checks pass and before any hosted service starts.</item>
/// <item>Every problem it reports is a line of one <see cref="MessageBusConfigurationException"/>, which stops the host.</item>
/// <item>It must end by itself: give every call a deadline, and honour <c>cancellationToken</c> (the host's startup).</item>
/// <item>Without a generic host it does not run: call it from the application when wanted.</item>
/// </list>
/// </remarks>
public interface IMessageBusResourceCheck
{
    /// <summary>Finds what the service says is missing or does not fit.</summary>
    /// <param name="bus">What the bus was configured with, and the application's services.</param>
    /// <param name="problems">Where to add each problem: what is wrong and what to do.</param>
    /// <param name="cancellationToken">Cancelled when the host gives up starting.</param>
    /// <returns>A task that completes when the check is done.</returns>
    Task CheckAsync(MessageBusDescription bus, ICollection<string> problems, CancellationToken cancellationToken);
}
