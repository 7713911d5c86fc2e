using System;

namespace Missive.Bus;

/// <summary>
/// A misuse of a pipeline that Missive detects (a next step called twice, a handler that returned no task, an outcome
/// that is not one): an <see cref="InvalidOperationException"/> whose message Missive wrote, holding no content.
/// </summary>
internal sealed class PipelineException(string message) : InvalidOperationException(message), IContentFreeException;
