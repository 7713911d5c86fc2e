using System.Collections.Generic;

namespace Missive.Bus;

/// <summary>
/// A check of the bus's configuration that a transport or the application adds (register it as a singleton): it runs
/// with the bus's own checks when the host starts (or when the first publisher or Lambda processor is resolved, without
/// a generic host), and every problem it reports is a line of the one <see cref="MessageBusConfigurationException"/>
/// that lists them all.
/// </summary>
public interface IMessageBusConfigurationCheck
{
    /// <summary>Finds what is configured wrongly.</summary>
    /// <param name="bus">What the bus was configured with, and the application's services.</param>
    /// <param name="problems">Where to add each problem: what is wrong and what to write instead.</param>
    void Check(MessageBusDescription bus, ICollection<string> problems);
}
