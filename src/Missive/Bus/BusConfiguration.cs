using System;
using System.Collections.Generic;

namespace Missive.Bus;

/// <summary>The routes, handlers and pollers the builder collected; fixed once the container is built.</summary>
internal sealed class BusConfiguration
{
    public Dictionary<Type, MessageRoute> Routes { get; } = [];

    /// <summary>Gets or sets whether publishers may write protobuf (<c>EnableExperimentalFeatures()</c>); reading it is always on.</summary>
    public bool ProtobufPublishing { get; set; }

    public Dictionary<Type, HandlerInvoker> Handlers { get; } = [];

    public List<(string Queue, PollerOptions Options)> Pollers { get; } = [];
}
