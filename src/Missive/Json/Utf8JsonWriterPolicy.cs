using System.IO;
using System.Text.Json;
using Microsoft.Extensions.ObjectPool;

namespace Missive.Json;

/// <summary>
/// Pools <see cref="Utf8JsonWriter"/> instances: they are pointed at the caller's buffer on use and
/// at <see cref="Stream.Null"/> when they come back, so an idle writer holds no reference to a caller's buffer.
/// </summary>
internal sealed class Utf8JsonWriterPolicy : PooledObjectPolicy<Utf8JsonWriter>
{
    private readonly JsonWriterOptions _options;

    public Utf8JsonWriterPolicy(JsonWriterOptions options) => _options = options;

    public override Utf8JsonWriter Create() => new(Stream.Null, _options);

    public override bool Return(Utf8JsonWriter obj)
    {
        obj.Reset(Stream.Null);
        return true;
    }
}
