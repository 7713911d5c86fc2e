using System;
using System.Collections.Generic;

namespace Missive.Aws;

/// <summary>The name a misspelt one most likely meant, for "did you mean" in configuration errors.</summary>
internal static class NearestName
{
    /// <summary>
    /// The candidate fewest edits away from <paramref name="name"/> (the first of equals), when it is at most
    /// <paramref name="maxDistance"/> edits away; else <c>null</c>.
    /// </summary>
    public static string? Of(string name, IEnumerable<string> candidates, int maxDistance, bool ignoreCase)
    {
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
