using System;
using System.Collections.Generic;
using System.Text;

namespace Missive;

/// <summary>
/// Thrown when the message bus or serialization is configured wrongly: when the host starts (or, without a generic host,
/// when the first publisher or Lambda processor is resolved), listing every problem found, each with what to write instead.
/// </summary>
public sealed class MessageBusConfigurationException : MissiveException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="message">What is wrong and how to fix it.</param>
    public MessageBusConfigurationException(string message)
        : base(message)
    {
        Problems = [message];
    }

    /// <summary>Creates the exception with a cause.</summary>
    /// <param name="message">What is wrong and how to fix it.</param>
    /// <param name="innerException">The cause.</param>
    public MessageBusConfigurationException(string message, Exception? innerException)
        : base(message, innerException)
    {
        Problems = [message];
    }

    /// <summary>Creates the exception for several problems, each what is wrong and how to fix it.</summary>
    /// <param name="problems">The problems. Must not be null or empty.</param>
    public MessageBusConfigurationException(IReadOnlyList<string> problems)
        : base(Describe(problems))
    {
        Problems = problems;
    }

    /// <summary>Gets every problem found, each what is wrong and how to fix it (one, for an exception made with a message).</summary>
    public IReadOnlyList<string> Problems { get; }

    private static string Describe(IReadOnlyList<string> problems)
    {
        ArgumentNullException.ThrowIfNull(problems);
        if (problems.Count == 0)
        {
            throw new ArgumentException("At least one problem is needed.", nameof(problems));
        }

        if (problems.Count == 1)
        {
            return problems[0];
        }

        var text = new StringBuilder($"The message bus is not configured right ({problems.Count} problems):");
        foreach (string problem in problems)
        {
            text.Append(Environment.NewLine).Append("- ").Append(problem);
        }

        return text.ToString();
    }
}
