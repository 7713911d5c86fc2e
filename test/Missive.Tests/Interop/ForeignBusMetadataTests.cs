using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using Missive.Serialization;
using Missive.Serialization.Payloads;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Interop;

/// <summary>
/// MassTransit's and NServiceBus's messages are read leniently (numbers from strings, names in any case), each bus through
/// metadata of its own. System.Text.Json keeps one metadata cache for all options whose settings and resolver are equal,
/// and its metadata learns the spelling of the member names it meets: MassTransit writes them in camelCase, NServiceBus as
/// declared, and one cache for both made a one-line NServiceBus read 11-13% slower after MassTransit reads in the same
/// process (the interop read benchmark). What can be checked without a clock: no two of the registration, the MassTransit
/// reader and the NServiceBus reader keep their metadata in one cache.
/// </summary>
public sealed class ForeignBusMetadataTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void EachBus_ReadsThroughMetadataOfItsOwn(bool optionsAlreadyLenient)
    {
        SerializationOptions options = optionsAlreadyLenient
            ? new SerializationOptions
            {
                JsonSerializerOptions = new JsonSerializerOptions
                {
                    TypeInfoResolver = TestJsonContext.Default,
                    NumberHandling = JsonNumberHandling.AllowReadingFromString,
                    PropertyNameCaseInsensitive = true,
                },
            }
            : TestSerializers.Options();
        MessageTypeInfo<Order> registered = new MessageTypeMap(options).Add<Order>(TestSerializers.OrderType).Get<Order>();

        MessageTypeInfo massTransit = registered.Lenient(ForeignBus.MassTransit);
        MessageTypeInfo nServiceBus = registered.Lenient(ForeignBus.NServiceBus);

        Assert.Same(massTransit, registered.Lenient(ForeignBus.MassTransit));
        Assert.Same(nServiceBus, registered.Lenient(ForeignBus.NServiceBus));
        JsonSerializerOptions[] readers = [Metadata(registered).Options, Metadata(massTransit).Options, Metadata(nServiceBus).Options];
        Assert.Equal(3, readers.Select(MetadataCache).Distinct(ReferenceEqualityComparer.Instance).Count());
        foreach (JsonSerializerOptions lenient in readers.Skip(1))
        {
            Assert.True(lenient.PropertyNameCaseInsensitive);
            Assert.Equal(JsonNumberHandling.AllowReadingFromString, lenient.NumberHandling & JsonNumberHandling.AllowReadingFromString);
        }
    }

    private static JsonTypeInfo<Order> Metadata(MessageTypeInfo info) => ((JsonPayloadCodec<Order>)((MessageTypeInfo<Order>)info).Codec).TypeInfo;

    /// <summary>
    /// The cache System.Text.Json keeps the options' metadata in, shared among options with equal settings; it is not
    /// public (<c>JsonSerializerOptions.CacheContext</c>), so a framework without it fails this test for a person to look again.
    /// </summary>
    private static object MetadataCache(JsonSerializerOptions options)
        => typeof(JsonSerializerOptions).GetProperty("CacheContext", BindingFlags.NonPublic | BindingFlags.Instance)?.GetValue(options)
            ?? throw new InvalidOperationException("System.Text.Json no longer has JsonSerializerOptions.CacheContext: check again how it shares metadata among options.");
}
