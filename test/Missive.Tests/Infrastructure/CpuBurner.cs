using System;
using System.Collections.Generic;
using System.Diagnostics;

namespace Missive.Tests.Infrastructure;

/// <summary>
/// Keeps the machine's cores busy with other processes (a test's stand-in for other builds on a loaded CI machine): each
/// is a shell spinning in a loop until disposed. Processes rather than threads of the test's own, whose spinning could
/// hold up the runtime's garbage collections and so stall the whole test process, which no machine's load does.
/// </summary>
internal sealed class CpuBurner : IDisposable
{
    private readonly List<Process> _processes = [];

    public CpuBurner(int processes)
    {
        for (int i = 0; i < processes; i++)
        {
            var start = new ProcessStartInfo(OperatingSystem.IsWindows() ? "powershell" : "/bin/sh")
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            if (OperatingSystem.IsWindows())
            {
                start.ArgumentList.Add("-Command");
                start.ArgumentList.Add("while ($true) { }");
            }
            else
            {
                start.ArgumentList.Add("-c");
                start.ArgumentList.Add("while :; do :; done");
            }

            _processes.Add(Process.Start(start) ?? throw new InvalidOperationException("The CPU burner could not start a process."));
        }
    }

    /// <summary>Gets how much processor time the burners have used so far.</summary>
    public TimeSpan ProcessorTime
    {
        get
        {
            TimeSpan total = TimeSpan.Zero;
            foreach (Process process in _processes)
            {
                process.Refresh();
                total += process.HasExited ? TimeSpan.Zero : process.TotalProcessorTime;
            }

            return total;
        }
    }

    public void Dispose()
    {
        foreach (Process process in _processes)
        {
            try
            {
                process.Kill();
                process.WaitForExit();
            }
            catch (InvalidOperationException)
            {
                // Already gone.
            }

            process.Dispose();
        }

        _processes.Clear();
    }
}
