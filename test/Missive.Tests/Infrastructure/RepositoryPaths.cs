using System;
using System.IO;

namespace Missive.Tests.Infrastructure;

/// <summary>Finds the repository root (the folder holding Missive.slnx) from the test's output folder.</summary>
public static class RepositoryPaths
{
    public static string Root { get; } = Find();

    private static string Find()
    {
        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Missive.slnx")))
            {
                return dir.FullName;
            }
        }

        throw new DirectoryNotFoundException("The repository root (Missive.slnx) was not found above " + AppContext.BaseDirectory);
    }
}
