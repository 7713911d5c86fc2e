using System;

namespace Missive.Bus;

/// <summary>A handler stopped waiting for at its timeout (<see cref="HandlingTimeoutMiddleware"/>): a <see cref="TimeoutException"/> holding no content.</summary>
internal sealed class HandlingTimeoutException(string message) : TimeoutException(message), IContentFreeException;
