using System;
using System.Collections.Concurrent;
using System.Linq;
using Microsoft.Extensions.Logging;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Json;

public sealed class LoggingTests
{
    private const string Secret = "SECRET-CARD-4111";

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void RejectedInput_IsLoggedWithContentOnlyWhenAllowed(bool logContent)
    {
        var provider = new CapturingLoggerProvider();
        using var factory = LoggerFactory.Create(b => b.AddProvider(provider).SetMinimumLevel(LogLevel.Trace));
        using var serializer = new Utf8JsonEnvelopeSerializer(TestSerializers.Map(TestSerializers.Options(o => o.LogMessageContent = logContent)), factory.CreateLogger<Utf8JsonEnvelopeSerializer>());

        Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize($$$"""{"id":"1","source":"/s","specversion":"1.0","type":"Orders.OrderPlaced","data":{"OrderId":"{{{Secret}}}","Total":"x"}}"""));

        Assert.Contains(provider.Messages, m => m.Contains("InvalidData", StringComparison.Ordinal));
        bool secretLogged = provider.Messages.Any(m => m.Contains(Secret, StringComparison.Ordinal));
        Assert.Equal(logContent, secretLogged);
    }
}
