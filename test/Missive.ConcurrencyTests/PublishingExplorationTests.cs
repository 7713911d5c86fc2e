using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Xunit.Abstractions;
using Microsoft.Coyote.Random;
using Microsoft.Coyote.Specifications;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Time.Testing;
using Missive.Bus;

namespace Missive.ConcurrencyTests;

/// <summary>
/// The publisher's batch publish and coalesced publishes under every interleaving the engine explores, against
/// <see cref="ModelQueues"/> and its faults, with the caller cancelling at any point and, for batches, a middleware that
/// lets one message through at a time. After each schedule:
/// <list type="bullet">
/// <item>no hang: everything ends within the fake clock's steps;</item>
/// <item>exactly one outcome per message, and it is true: a message reported sent was stored once; a message stored and
/// reported failed carries the error of a call whose answer was lost; a message reported cancelled was not stored;</item>
/// <item>no body is taken back while a call reads it (the model reads each body from its pooled array when it stores it,
/// also when it takes a call the bus abandoned at its deadline);</item>
/// <item>FIFO: a group's messages are stored in the batch's order, and none is stored after an earlier one of its group
/// failed in an earlier call or was never sent for it; coalesced publishes of a group are stored in the order of their
/// calls, a call abandoned at its deadline and taken late included.</item>
/// </list>
/// </summary>
public sealed class PublishingExplorationTests(ITestOutputHelper output)
{
    private const int Messages = 12;

    [Fact]
    public void BatchPublish_UnderFaultsCancellationAndAOneAtATimeMiddleware_KeepsItsInvariants()
        => Exploration.Run(nameof(BatchPublish_UnderFaultsCancellationAndAOneAtATimeMiddleware_KeepsItsInvariants), BatchPublishAsync, iterations: 300, output);

    [Fact]
    public void CoalescedPublishes_UnderFaultsAndCancellation_KeepTheirInvariants()
        => Exploration.Run(nameof(CoalescedPublishes_UnderFaultsAndCancellation_KeepTheirInvariants), () => CoalescedPublishesAsync(fifo: false), iterations: 300, output);

    [Fact]
    public void CoalescedFifoPublishes_WithCallsTakenAfterTheirDeadline_KeepTheirGroupsInOrder()
        => Exploration.Run(nameof(CoalescedFifoPublishes_WithCallsTakenAfterTheirDeadline_KeepTheirGroupsInOrder), () => CoalescedPublishesAsync(fifo: true), iterations: 200, output);

    private static async Task BatchPublishAsync()
    {
        var random = Generator.Create();
        var clock = new FakeTimeProvider();
        var model = new ModelQueues(clock, lateCalls: true);
        bool fifo = random.NextBoolean();
        bool oneAtATime = random.NextBoolean();
        using ServiceProvider services = Services(model, clock, fifo ? "notes.fifo" : "notes", oneAtATime, coalesce: false);
        IMessagePublisher publisher = services.GetRequiredService<IMessagePublisher>();
        List<Note> notes = Notes();
        using var cancel = new CancellationTokenSource();
        bool cancels = random.NextInteger(4) == 0;

        Task<IReadOnlyList<PublishResult<Note>>> batch = publisher.PublishBatchAsync(notes, note => fifo ? new PublishOptions { MessageGroupId = note.Group, MessageDeduplicationId = note.Id } : null, cancel.Token);
        Task canceller = cancels ? Task.Run(async () =>
        {
            await Task.Yield();
            cancel.Cancel(); // on this task: the engine controls it (CancelAsync would run the callbacks on the thread pool)
        }) : Task.CompletedTask;
        await RunClock(clock, batch, TimeSpan.FromMilliseconds(50), model, () => $"fifo {fifo}, one at a time {oneAtATime}, cancels {cancels} (cancelled {cancel.IsCancellationRequested}), stored [{string.Join(",", model.Stored)}], presented [{string.Join(",", model.Presented.Select(p => p.Key + "@" + p.Value))}], faults [{string.Join(",", model.Faults)}]");
        IReadOnlyList<PublishResult<Note>> results = await batch;
        await canceller;

        Specification.Assert(results.Count == Messages, "one result per message");
        var outcomes = results.Select(r => (r.Message.Id, r.Error)).ToList();
        CheckOutcomes(model, outcomes);
        if (fifo)
        {
            CheckFifo(model, notes, outcomes);
        }
    }

    private static async Task CoalescedPublishesAsync(bool fifo)
    {
        var random = Generator.Create();
        var clock = new FakeTimeProvider();
        var model = new ModelQueues(clock, lateCalls: true);
        using ServiceProvider services = Services(model, clock, fifo ? "notes.fifo" : "notes", oneAtATime: false, coalesce: true);
        IMessagePublisher publisher = services.GetRequiredService<IMessagePublisher>();
        List<Note> notes = Notes();
        var cancels = new List<CancellationTokenSource>();
        var publishes = new List<Task<(string Id, Exception? Error)>>();
        foreach (Note note in notes)
        {
            var cancel = new CancellationTokenSource();
            cancels.Add(cancel);
            publishes.Add(Task.Run(async () =>
            {
                try
                {
                    await publisher.PublishAsync(note, cancellationToken: cancel.Token);
                    return (note.Id, (Exception?)null);
                }
                catch (Exception e)
                {
                    return (note.Id, e);
                }
            }));
        }

        var cancellers = new List<Task>();
        foreach (CancellationTokenSource cancel in cancels)
        {
            if (random.NextInteger(3) == 0)
            {
                cancellers.Add(Task.Run(async () =>
                {
                    await Task.Yield();
                    cancel.Cancel(); // on this task: the engine controls it (CancelAsync would run the callbacks on the thread pool)
                }));
            }
        }

        Task<(string Id, Exception? Error)[]> all = Task.WhenAll(publishes);
        await RunClock(clock, all, TimeSpan.FromMilliseconds(250), model, () => $"stored [{string.Join(",", model.Stored)}], faults [{string.Join(",", model.Faults)}], done [{string.Join(",", publishes.Select(p => p.IsCompleted ? 1 : 0))}]");
        (string Id, Exception? Error)[] outcomes = await all;
        await Task.WhenAll(cancellers);
        cancels.ForEach(c => c.Dispose());

        CheckOutcomes(model, outcomes);
        if (fifo)
        {
            CheckCallOrder(model);
        }
    }

    /// <summary>
    /// Advances the fake clock while <paramref name="until"/> runs, then until every call the bus abandoned has been taken;
    /// a run that needs more steps than this hangs. Every tenth step jumps ten seconds, so that a call's deadline and a
    /// late call are reached in a few dozen steps.
    /// </summary>
    private static async Task RunClock(FakeTimeProvider clock, Task until, TimeSpan step, ModelQueues model, Func<string> state)
    {
        for (int steps = 0; !until.IsCompleted || model.CallsUnderWay > 0; steps++)
        {
            if (steps >= 2_000)
            {
                Specification.Assert(false, "no hang: the publishes did not end within 2,000 steps of the fake clock: " + state());
            }

            clock.Advance(steps % 10 == 9 ? TimeSpan.FromSeconds(10) : step);
            await Task.Delay(1); // a scheduling point (the engine does not wait on the real clock)
        }
    }

    /// <summary>Coalesced FIFO publishes: of two stored messages of a group, the one presented in an earlier call was stored first.</summary>
    private static void CheckCallOrder(ModelQueues model)
    {
        IReadOnlyList<string> stored = model.Stored;
        IReadOnlyDictionary<string, int> presented = model.Presented;
        for (int a = 0; a < stored.Count; a++)
        {
            for (int b = a + 1; b < stored.Count; b++)
            {
                if (Group(stored[a]) == Group(stored[b]))
                {
                    Specification.Assert(presented[stored[a]] <= presented[stored[b]], $"{stored[a]} (call {presented[stored[a]]}) overtook {stored[b]} of its group (call {presented[stored[b]]}): it was stored first");
                }
            }
        }

        static string Group(string id) => "g" + (int.Parse(id[2..], System.Globalization.CultureInfo.InvariantCulture) % 2);
    }

    private static void CheckOutcomes(ModelQueues model, IEnumerable<(string Id, Exception? Error)> outcomes)
    {
        IReadOnlyList<string> stored = model.Stored;
        foreach ((string id, Exception? error) in outcomes)
        {
            int times = stored.Count(s => s == id);
            Specification.Assert(times <= 1, $"{id} was stored {times} times");
            if (error is null)
            {
                Specification.Assert(times == 1, $"{id} was reported sent but not stored");
            }
            else if (error is OperationCanceledException)
            {
                Specification.Assert(times == 0, $"{id} was reported cancelled but was stored");
            }
            else if (times == 1)
            {
                Specification.Assert(
                    error.Message.Contains(ModelQueues.AnswerLost, StringComparison.Ordinal) || error.Message.Contains("CallTimedOut", StringComparison.Ordinal),
                    $"{id} was stored but reported failed with: {error.Message}");
            }
        }
    }

    private static void CheckFifo(ModelQueues model, List<Note> notes, List<(string Id, Exception? Error)> outcomes)
    {
        IReadOnlyList<string> stored = model.Stored;
        IReadOnlyDictionary<string, int> presented = model.Presented;
        var place = stored.Select((id, i) => (id, i)).GroupBy(p => p.id).ToDictionary(g => g.Key, g => g.First().i);
        foreach (IGrouping<string, int> group in notes.Select((n, i) => (n, i)).GroupBy(p => p.n.Group, p => p.i))
        {
            int[] indexes = [.. group];
            for (int a = 0; a < indexes.Length; a++)
            {
                for (int b = a + 1; b < indexes.Length; b++)
                {
                    string earlier = notes[indexes[a]].Id, later = notes[indexes[b]].Id;
                    if (place.TryGetValue(earlier, out int e) && place.TryGetValue(later, out int l))
                    {
                        Specification.Assert(e < l, $"{later} was stored before {earlier} of its group");
                    }

                    Exception? failure = outcomes[indexes[a]].Error;
                    if (!place.ContainsKey(earlier) && failure is not null and not OperationCanceledException && place.ContainsKey(later))
                    {
                        Specification.Assert(
                            presented.TryGetValue(earlier, out int call) && call == presented[later],
                            $"{later} was stored in a later call than {earlier} of its group, which failed ({failure.Message})");
                    }
                }
            }
        }
    }

    private static List<Note> Notes()
        => [.. Enumerable.Range(0, Messages).Select(i => new Note { Id = "N-" + i, Group = "g" + (i % 2) })];

    private static ServiceProvider Services(ModelQueues model, TimeProvider clock, string queue, bool oneAtATime, bool coalesce)
    {
        var services = new ServiceCollection();
        services.AddSingleton<Missive.Transport.IMessageTransport>(model);
        services.AddSingleton(clock);
        services.AddSingleton<OneAtATime>();
        services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Note>("test.note").ConfigureSerialization(o => o.AllowReflectionFallback = true).AddSqsPublisher<Note>(queue);
            if (queue.EndsWith(".fifo", StringComparison.Ordinal))
            {
                bus.AddFifoIds<Note>(note => note.Group, note => note.Id);
            }
            if (oneAtATime)
            {
                bus.UsePublishMiddleware<OneAtATime>();
            }

            if (coalesce)
            {
                bus.CoalescePublishes(TimeSpan.FromSeconds(1));
            }
        });
        return services.BuildServiceProvider();
    }

    /// <summary>A publish middleware that lets one message through to its send at a time.</summary>
    public sealed class OneAtATime : IPublishMiddleware, IDisposable
    {
        private readonly SemaphoreSlim _one = new(1);

        public void Dispose() => _one.Dispose();

        public async Task InvokeAsync(PublishContext context, PublishStep nextStep)
        {
            await _one.WaitAsync();
            try
            {
                await nextStep(context);
            }
            finally
            {
                _one.Release();
            }
        }
    }
}
