using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Coyote.Random;
using Microsoft.Coyote.Specifications;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Time.Testing;
using Missive.Bus;
using Missive.Serialization;
using Xunit.Abstractions;

namespace Missive.ConcurrencyTests;

/// <summary>
/// The pump (a poller run with its heartbeat and delete batcher) under every interleaving the engine explores, against
/// <see cref="ModelQueue"/> and its faults, with handlers that take no time, longer than half the visibility timeout, or
/// longer than all of it, and that may fail once (a retry delay). After each schedule:
/// <list type="bullet">
/// <item>no hang: every message is handled and deleted, and the pump stops, within the fake clock's steps;</item>
/// <item>no message is delivered again while its handler runs (checked at each delivery);</item>
/// <item>no release or retry delay is undone by an extension that landed after it, even one whose task ended before it
/// landed;</item>
/// <item>an abandoned extension call is retried by one call, not one per message;</item>
/// <item>every pooled buffer went back once, cleared (<see cref="CheckedArrayPool"/>);</item>
/// <item>FIFO: at most one handler per group at a time, and a message starts only once every earlier message of its
/// group was handled.</item>
/// </list>
/// </summary>
public sealed class PumpExplorationTests(ITestOutputHelper output)
{
    private const int Messages = 6;
    private static readonly TimeSpan VisibilityTimeout = TimeSpan.FromSeconds(8);
    private static readonly TimeSpan Step = TimeSpan.FromMilliseconds(250);
    private static readonly TimeSpan Jump = TimeSpan.FromSeconds(1); // an eighth of the visibility timeout

    [Fact]
    public void ThePump_UnderFaultsAndSlowHandlers_KeepsItsInvariants()
        => Exploration.Run(nameof(ThePump_UnderFaultsAndSlowHandlers_KeepsItsInvariants), PumpAsync, iterations: 150, output);

    private static async Task PumpAsync()
    {
        var random = Generator.Create();
        var clock = new FakeTimeProvider();
        bool fifo = random.NextBoolean();
        var script = new HandlerScript(clock, random);
        var model = new ModelQueue(clock, VisibilityTimeout, fifo, script.IsRunning);
        string queue = fifo ? "work.fifo" : "work";
        var pool = new CheckedArrayPool();
        var services = new ServiceCollection();
        services.AddSingleton<Missive.Transport.IMessageTransport>(model);
        services.AddSingleton<TimeProvider>(clock);
        services.AddSingleton(script);
        services.AddMessageBus(bus => bus
            .AddMessageType<Note>("test.note")
            .ConfigureSerialization(o =>
            {
                o.AllowReflectionFallback = true;
                o.BufferPool = pool;
            })
            .AddHandler<Note, ScriptedHandler>()
            .AddQueuePoller(queue, o =>
            {
                o.MaxConcurrency = 3;
                o.VisibilityTimeout = VisibilityTimeout;
                o.RetryDelay = TimeSpan.FromSeconds(2);
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.ReceiveErrorDelay = TimeSpan.FromMilliseconds(100);
                o.MaxReceiveErrorDelay = TimeSpan.FromMilliseconds(200);
            }));
        ServiceProvider provider = services.BuildServiceProvider();
        IEnvelopeFactory factory = provider.GetRequiredService<IEnvelopeFactory>();
        IEnvelopeSerializer serializer = provider.GetRequiredService<IEnvelopeSerializer>();
        for (int i = 0; i < Messages; i++)
        {
            var note = new Note { Id = "N-" + i, Group = "g" + (i % 2) };
            script.Plan(note.Id, random);
            model.Add(note.Id, serializer.SerializeToString(factory.CreateEnvelope(note)), note.Group);
        }

        // The poller run itself (the hosted service starts it on a thread the engine does not control).
        QueuePoller poller = provider.GetServices<IHostedService>().OfType<MessagePump>().Single().Pollers.Single();
        using var stopping = new CancellationTokenSource();
        Task run = poller.RunAsync(stopping.Token);
        for (int steps = 0; model.Remaining > 0; steps++)
        {
            if (steps >= 1_000)
            {
                Specification.Assert(false, $"no hang: {model.Remaining} messages were not handled and deleted within 1,000 steps of the fake clock");
            }

            clock.Advance(random.NextInteger(10) == 0 ? Jump : Step); // now and then the clock jumps (a late timer, a paused VM)
            await Task.Delay(1);
        }

        stopping.Cancel();
        for (int steps = 0; !run.IsCompleted || model.LandingsPending > 0; steps++)
        {
            Specification.Assert(steps < 1_000, "no hang: the poller did not stop within 1,000 steps of the fake clock");
            clock.Advance(Step);
            await Task.Delay(1);
        }

        for (int steps = 0; steps < 130; steps++)
        {
            clock.Advance(Step); // past every late-landing window: the changes made again when it closes are made
            await Task.Delay(1);
        }

        await run;
        await provider.DisposeAsync();
        pool.CheckAllReturned("after the poller stopped, the bus disposed");
        model.CheckNoReleaseUndone();
        model.CheckOneRetryPerAbandonedCall();
        if (fifo)
        {
            script.CheckFifo();
        }
    }

    /// <summary>What each message's handler does (planned per message by the engine), and what the handlers did.</summary>
    public sealed class HandlerScript(TimeProvider clock, Generator random)
    {
        private static readonly TimeSpan[] Durations = [TimeSpan.Zero, TimeSpan.FromSeconds(4.25), TimeSpan.FromSeconds(9)];

        private readonly object _gate = new();
        private readonly Dictionary<string, (TimeSpan Duration, bool FailsFirst)> _plans = [];
        private readonly HashSet<string> _running = [];
        private readonly HashSet<string> _handled = [];
        private readonly Dictionary<string, int> _attempts = [];
        private readonly List<string> _violations = [];

        public void Plan(string id, Generator choice) => _plans[id] = (Durations[choice.NextInteger(Durations.Length)], choice.NextInteger(3) == 0);

        public bool IsRunning(string id)
        {
            lock (_gate)
            {
                return _running.Contains(id);
            }
        }

        public async Task RunAsync(Note note, CancellationToken cancellationToken)
        {
            (TimeSpan duration, bool failsFirst) = _plans[note.Id];
            int attempt;
            lock (_gate)
            {
                attempt = _attempts[note.Id] = _attempts.GetValueOrDefault(note.Id) + 1;
                if (_running.Any(r => Group(r) == note.Group))
                {
                    _violations.Add($"{note.Id} started while another message of group {note.Group} was running");
                }

                int number = Number(note.Id);
                foreach (string earlier in _plans.Keys.Where(k => Group(k) == note.Group && Number(k) < number))
                {
                    if (!_handled.Contains(earlier))
                    {
                        _violations.Add($"{note.Id} started before {earlier} of its group was handled");
                    }
                }

                _running.Add(note.Id);
            }

            try
            {
                if (duration > TimeSpan.Zero)
                {
                    await ClockDelay.WaitAsync(clock, duration, cancellationToken);
                }

                if (failsFirst && attempt == 1 && random.NextBoolean())
                {
                    throw new InvalidOperationException("the handler failed: retried after the retry delay");
                }

                lock (_gate)
                {
                    _handled.Add(note.Id);
                }
            }
            finally
            {
                lock (_gate)
                {
                    _running.Remove(note.Id);
                }
            }
        }

        public void CheckFifo()
        {
            lock (_gate)
            {
                Specification.Assert(_violations.Count == 0, string.Join("; ", _violations));
            }
        }

        private static int Number(string id) => int.Parse(id[2..], System.Globalization.CultureInfo.InvariantCulture);

        private static string Group(string id) => "g" + (Number(id) % 2);
    }

    public sealed class ScriptedHandler(HandlerScript script) : IMessageHandler<Note>
    {
        public Task HandleAsync(MessageEnvelope<Note> envelope, CancellationToken cancellationToken) => script.RunAsync(envelope.Message!, cancellationToken);
    }
}
