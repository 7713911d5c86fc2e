using System;
using System.Collections.Generic;

namespace Missive;

/// <summary>
/// The names of configuration, for the errors that say what a misspelt one meant: Missive's packages read their
/// configuration sections by hand (no reflection, so trimming and native AOT keep working) and report every key they do
/// not know, with the nearest setting.
/// </summary>
public static class ConfigurationNames
{
    /// <summary>
    /// The candidate fewest edits away from <paramref name="name"/> (the first of equals), when it is at most
    /// <paramref name="maxDistance"/> edits away; else <c>null</c>.
    /// </summary>
    /// <param name="name">The name as written. Must not be null.</param>
    /// <param name="candidates">The names it may have meant. Must not be null.</param>
    /// <param name="maxDistance">The most edits (insertions, deletions, substitutions) to accept.</param>
    /// <param name="ignoreCase">Whether case is ignored (configuration keys are case-insensitive).</param>
    /// <returns>The nearest candidate, or <c>null</c>.</returns>
    public static string? Nearest(string name, IEnumerable<string> candidates, int maxDistance = int.MaxValue, bool ignoreCase = true)
    {
        ArgumentNullException.ThrowIfNull(name);
        ArgumentNullException.ThrowIfNull(candidates);
        string? best = null;
        int bestDistance = int.MaxValue;
        string key = ignoreCase ? name.ToUpperInvariant() : name;
        foreach (string candidate in candidates)
        {
            int distance = Distance(key, ignoreCase ? candidate.ToUpperInvariant() : candidate);
            if (distance <= maxDistance && distance < bestDistance)
            {
                (best, bestDistance) = (candidate, distance);
            }
        }

        return best;
    }

    /// <summary>The Levenshtein distance between two short names.</summary>
    private static int Distance(string a, string b)
    {
        int[] previous = new int[b.Length + 1], current = new int[b.Length + 1];
        for (int j = 0; j <= b.Length; j++)
        {
            previous[j] = j;
        }

        for (int i = 1; i <= a.Length; i++)
        {
            current[0] = i;
            for (int j = 1; j <= b.Length; j++)
            {
                current[j] = Math.Min(Math.Min(current[j - 1], previous[j]) + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1));
            }

            (previous, current) = (current, previous);
        }

        return previous[b.Length];
    }
}
