namespace Missive;

/// <summary>Settings of the experimental (high-performance) features, given to <see cref="MessageBusBuilder.EnableExperimentalFeatures"/>.</summary>
public sealed class ExperimentalFeaturesOptions
{
}
