using System;

namespace Missive.Tests.Infrastructure;

/// <summary>Sets environment variables for a test and puts back what they were (tests that use it share a collection: the variables are the process's).</summary>
public sealed class EnvironmentScope : IDisposable
{
    private readonly (string Name, string? Previous)[] _saved;

    public EnvironmentScope(params (string Name, string Value)[] variables)
    {
        _saved = new (string, string?)[variables.Length];
        for (int i = 0; i < variables.Length; i++)
        {
            _saved[i] = (variables[i].Name, Environment.GetEnvironmentVariable(variables[i].Name));
            Environment.SetEnvironmentVariable(variables[i].Name, variables[i].Value);
        }
    }

    public void Dispose()
    {
        foreach ((string name, string? previous) in _saved)
        {
            Environment.SetEnvironmentVariable(name, previous);
        }
    }
}
