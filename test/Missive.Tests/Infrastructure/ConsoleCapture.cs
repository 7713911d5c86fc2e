using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Tests.Infrastructure;

/// <summary>Runs code that prints to the console and returns what it printed; one at a time, since the console is process-wide.</summary>
public static class ConsoleCapture
{
    private static readonly SemaphoreSlim Gate = new(1, 1);

    public static async Task<string> RunAsync(Func<Task> run)
    {
        await Gate.WaitAsync();
        TextWriter console = Console.Out;
        var output = new StringWriter();
        try
        {
            Console.SetOut(TextWriter.Synchronized(output));
            await run().WaitAsync(TimeSpan.FromSeconds(120));
        }
        finally
        {
            Console.SetOut(console);
            Gate.Release();
        }

        return output.ToString();
    }
}
