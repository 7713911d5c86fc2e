using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Reflection;

namespace Missive.Diagnostics;

/// <summary>
/// The names under which Missive reports traces and metrics, for <c>AddSource</c> and <c>AddMeter</c> in
/// OpenTelemetry (or an <see cref="ActivityListener"/> and a <see cref="MeterListener"/>). Spans and instruments
/// follow the OpenTelemetry semantic conventions for messaging; see the README's tracing section for each name.
/// </summary>
public static class MissiveDiagnostics
{
    /// <summary>The name of the <see cref="ActivitySource"/> and of the <see cref="Meter"/>: <c>Missive</c>.</summary>
    public const string Name = "Missive";

    /// <summary>The source of the producer span of each publish and the consumer span of each handled message.</summary>
    internal static readonly ActivitySource ActivitySource = new(Name, Version);

    /// <summary>The library version reported with the activity source and the meter.</summary>
    internal static string Version => typeof(MissiveDiagnostics).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "0.0.0";
}
