using Missive.Serialization;

namespace Missive;

/// <summary>Settings of the experimental (high-performance) features, given to <see cref="MessageBusBuilder.EnableExperimentalFeatures"/>.</summary>
public sealed class ExperimentalFeaturesOptions
{
    /// <summary>
    /// Gets or sets the format publishers write envelopes in by default. Default <see cref="EnvelopeFormat.Json"/>.
    /// Subscribers read both formats whatever this says.
    /// </summary>
    public EnvelopeFormat PublishFormat { get; set; } = EnvelopeFormat.Json;
}
