using System;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Bus;

/// <summary>Missive's own refusals pass through an application's publish middleware as themselves; only what the middleware throws is its failure.</summary>
public sealed class PublishMiddlewareErrorTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ADelayOnAnSnsTopic_IsTheSameArgumentException_WithOrWithoutAMiddleware(bool middleware)
    {
        using IHost host = Host(middleware ? bus => bus.UsePublishMiddleware<PassThrough>() : null);
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        var error = await Assert.ThrowsAnyAsync<Exception>(() => publisher.PublishAsync(Orders.Create(1), new PublishOptions { Delay = TimeSpan.FromMinutes(1) }));

        Assert.IsAssignableFrom<ArgumentException>(error); // not a UserCodeException blaming PassThrough
        Assert.Contains("Delay", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task WhatAMiddlewareThrowsItself_IsItsFailure()
    {
        using IHost host = Host(bus => bus.UsePublishMiddleware<Throwing>());
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        var error = await Assert.ThrowsAsync<UserCodeException>(() => publisher.PublishAsync(Orders.Create(1)));

        Assert.Contains(nameof(Throwing), error.Message, StringComparison.Ordinal);
    }

    private static IHost Host(Action<MessageBusBuilder>? configure)
        => BusTestHost.Build(b => b.CreateTopic("orders"), bus =>
        {
            bus.AddSnsPublisher<Order>("orders");
            configure?.Invoke(bus);
        });

    public sealed class PassThrough : IPublishMiddleware
    {
        public Task InvokeAsync(PublishContext context, PublishStep nextStep) => nextStep(context);
    }

    public sealed class Throwing : IPublishMiddleware
    {
        public Task InvokeAsync(PublishContext context, PublishStep nextStep) => throw new InvalidOperationException("the tenant is unknown");
    }
}
