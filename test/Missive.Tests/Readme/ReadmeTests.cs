using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Readme;

public sealed partial class ReadmeTests
{
    [Fact]
    public void EveryCSharpBlockInTheReadme_IsCompiledCodeFromReadmeSnippets()
    {
        string readme = File.ReadAllText(Path.Combine(RepositoryPaths.Root, "README.md"));
        string[] source = Lines(File.ReadAllText(Path.Combine(RepositoryPaths.Root, "test", "Missive.Tests", "Readme", "ReadmeSnippets.cs")));
        MatchCollection blocks = CSharpBlock().Matches(readme);

        Assert.NotEmpty(blocks);
        foreach (Match block in blocks)
        {
            string[] lines = Lines(block.Groups[1].Value);
            Assert.True(ContainsInOrder(source, lines), "This README block is not in ReadmeSnippets.cs (so it may not compile):\n" + block.Groups[1].Value);
        }
    }

    [Fact]
    public async Task TheReadmeSnippets_Run()
    {
        using ServiceProvider provider = ReadmeSnippets.Configure(new ServiceCollection());
        var order = new OrderPlaced("ORD-2", 10m);

        await ReadmeSnippets.Publish(provider, order);
        MessageEnvelope read = ReadmeSnippets.SerializeAndRead(provider, order);
        InMemoryBroker broker = provider.GetRequiredService<InMemoryBroker>();
        IReadOnlyList<SqsMessage> received = await broker.ReceiveAsync("billing", 10, TimeSpan.Zero);

        Assert.Equal("ORD-2", ((MessageEnvelope<OrderPlaced>)read).Message.OrderId);
        Assert.Equal(2, received.Count);
        Assert.All(received, m => Assert.NotNull(ReadmeSnippets.ReadSqsMessage(provider, m)));
    }

    private static string[] Lines(string text)
        => text.Split('\n').Select(l => l.Trim()).Where(l => l.Length > 0).ToArray();

    private static bool ContainsInOrder(string[] source, string[] lines)
    {
        for (int start = 0; start < source.Length; start++)
        {
            if (source.Skip(start).Take(lines.Length).SequenceEqual(lines))
            {
                return true;
            }
        }

        return false;
    }

    [GeneratedRegex("```csharp\\n(.*?)```", RegexOptions.Singleline)]
    private static partial Regex CSharpBlock();
}
