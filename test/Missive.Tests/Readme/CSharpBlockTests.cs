using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Reflection.PortableExecutable;
using System.Runtime.InteropServices;
using System.Runtime.Loader;
using System.Text.RegularExpressions;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Diagnostics;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Readme;

/// <summary>
/// Every C# block of the README, the packages' READMEs and docs/ compiles as pasted. A block is compiled by itself with
/// the C# compiler (as a program when it has top-level statements), together with the files its first line names
/// (<c>// With Orders.cs ...</c>: the README's quick-start types); a block that shows part of a file says so on its
/// first line (<c>// Part of test/Missive.Tests/Readme/Snippets/BusFeatures.cs</c>), and then that whole file is
/// compiled by itself, with the files its own first line names. Nothing else is referenced but the framework and the
/// packages: not the test assembly nor the samples, whose types would otherwise stand in for a missing one. Every block
/// is also code the tests run: its lines are those of a file of Readme/Snippets or a sample, in order.
/// </summary>
public sealed partial class CSharpBlockTests
{
    private static readonly string SnippetsFolder = Path.Combine(RepositoryPaths.Root, "test", "Missive.Tests", "Readme", "Snippets");

    private static readonly ConcurrentDictionary<string, string> FileCompilations = new(StringComparer.Ordinal);

    public static TheoryData<string> Pages() => ReadmeTests.Pages();

    [Theory]
    [MemberData(nameof(Pages))]
    public void EveryCSharpBlock_CompilesAsPasted_OrNamesTheFileItIsPartOf_WhichCompiles(string page)
    {
        string text = File.ReadAllText(Path.Combine(RepositoryPaths.Root, page)).ReplaceLineEndings("\n");
        string[][] tested = Directory.GetFiles(SnippetsFolder, "*.cs")
            .Concat(Directory.GetFiles(Path.Combine(RepositoryPaths.Root, "samples"), "*.cs", SearchOption.AllDirectories).Where(f => !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal)))
            .Select(f => Lines(File.ReadAllText(f)))
            .ToArray();
        var problems = new List<string>();

        foreach (Match block in CSharpBlock().Matches(text))
        {
            string code = block.Groups[1].Value;
            string[] lines = Lines(code);
            string first = lines.FirstOrDefault() ?? string.Empty;
            string[] body = lines.SkipWhile(l => l.StartsWith("//", StringComparison.Ordinal)).ToArray();
            string[] statements = body.SkipWhile(IsUsing).ToArray();
            if (!tested.Any(file => body.TakeWhile(IsUsing).All(file.TakeWhile(l => !l.StartsWith("namespace ", StringComparison.Ordinal)).Contains) && ContainsInOrder(file, statements)))
            {
                problems.Add($"This block is not code of Readme/Snippets or a sample (with those usings), which the tests run:\n{code}");
                continue;
            }

            Match part = PartOf().Match(first);
            string? errors = part.Success
                ? CompileFile(part.Groups[1].Value)
                : Compile("the block", code, Companions(first));
            if (errors is not null)
            {
                problems.Add($"{(part.Success ? part.Groups[1].Value + ", which this block is part of," : "This block")} does not compile as pasted:\n{errors}\n{code}");
            }
        }

        Assert.True(problems.Count == 0, $"{page}:\n\n" + string.Join("\n\n", problems));
    }

    [Fact]
    public void TheCompiler_RefusesABlockThatLacksAType_AndTheSnippetFilesThatAClosingBraceCloses()
    {
        // What this test class exists to catch: a type defined nowhere in what the block compiles with, a missing brace.
        const string LacksAType = "using Missive.Bus;\n\npublic static class Uses\n{\n    public static object Make() => new ScannedDocument();\n}\n";
        const string LacksABrace = "public static class Open\n{\n    public static int One() => 1;\n";

        Assert.Contains("CS0246", Compile("a block", LacksAType, []), StringComparison.Ordinal); // type or namespace not found
        Assert.Contains("CS1513", Compile("a block", LacksABrace, []), StringComparison.Ordinal); // } expected
        Assert.Null(Compile("a block", "// With Orders.cs\nusing Missive.Bus;\n\npublic static class Uses\n{\n    public static object Make() => new OrderPlaced(\"1\", 1m);\n}\n", ["Orders.cs"]));
    }

    /// <summary>The snippet files a first line <c>// With A.cs and B.cs ...</c> names.</summary>
    private static string[] Companions(string first)
    {
        Match with = With().Match(first);
        return with.Success ? with.Groups[1].Value.Split(" and ", StringSplitOptions.TrimEntries) : [];
    }

    /// <summary>The errors of a whole repository file compiled by itself (with its companions), or <c>null</c>.</summary>
    private static string? CompileFile(string path)
    {
        string full = Path.Combine(RepositoryPaths.Root, path);
        if (!File.Exists(full))
        {
            return $"{path} does not exist.";
        }

        string result = FileCompilations.GetOrAdd(path, _ =>
        {
            string text = File.ReadAllText(full);
            return Compile(path, text, Companions(Lines(text).FirstOrDefault() ?? string.Empty)) ?? string.Empty;
        });
        return result.Length == 0 ? null : result;
    }

    /// <summary>The errors of one source compiled with its companions, the framework and the packages, or <c>null</c>.</summary>
    private static string? Compile(string name, string source, string[] companions)
    {
        // A block goes to the global namespace, as pasted; so do its companions, whose namespace line (Missive.Tests.Readme)
        // the docs do not show. A whole file keeps its namespace, and so do its companions, as the build compiles them.
        var parse = new CSharpParseOptions(LanguageVersion.CSharp14);
        var trees = new List<SyntaxTree> { CSharpSyntaxTree.ParseText(source, parse, path: name) };
        bool global = !NamespaceLine().IsMatch(source);
        foreach (string companion in companions)
        {
            string path = Path.Combine(SnippetsFolder, companion);
            if (!File.Exists(path))
            {
                return $"{name} names {companion}, which is not a file of Readme/Snippets.";
            }

            string text = File.ReadAllText(path);
            trees.Add(CSharpSyntaxTree.ParseText(global ? NamespaceLine().Replace(text, string.Empty) : text, parse, path: companion));
        }

        bool program = trees.Any(t => t.GetRoot().DescendantNodes().OfType<GlobalStatementSyntax>().Any());
        var options = new CSharpCompilationOptions(program ? OutputKind.ConsoleApplication : OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable);
        CSharpCompilation compilation = CSharpCompilation.Create("Block", trees, References.Value, options);
        CSharpGeneratorDriver.Create(Generators.Value, parseOptions: parse).RunGeneratorsAndUpdateCompilation(compilation, out Compilation generated, out ImmutableArray<Diagnostic> generatorDiagnostics);
        Diagnostic[] errors = generatorDiagnostics.Concat(generated.GetDiagnostics()).Where(d => d.Severity == DiagnosticSeverity.Error).ToArray();
        return errors.Length == 0 ? null : string.Join("\n", errors.Select(e => e.ToString()));
    }

    /// <summary>
    /// The framework and every package the test run loaded from, but no assembly built from this repository's tests or
    /// samples: a type a block lacks must not be found there.
    /// </summary>
    private static readonly Lazy<MetadataReference[]> References = new(() =>
    {
        string[] excluded = [typeof(CSharpBlockTests).Assembly.GetName().Name!, "WorkerService", "QuickStart", "NativeMessages", "LambdaSqs"];
        return ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator)
            .Where(p => p.EndsWith(".dll", StringComparison.OrdinalIgnoreCase) && !excluded.Contains(Path.GetFileNameWithoutExtension(p), StringComparer.Ordinal) && HasMetadata(p))
            .Select(p => (MetadataReference)MetadataReference.CreateFromFile(p))
            .ToArray();
    });

    /// <summary>System.Text.Json's source generator, from the SDK's reference pack, for the blocks' serializer contexts.</summary>
    private static readonly Lazy<ISourceGenerator[]> Generators = new(() =>
    {
        string packs = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", "..", "packs", "Microsoft.NETCore.App.Ref"));
        string pack = Directory.GetDirectories(packs, $"{Environment.Version.Major}.*")
            .OrderByDescending(d => Version.TryParse(Path.GetFileName(d).Split('-')[0], out Version? v) ? v : new Version())
            .FirstOrDefault() ?? throw new InvalidOperationException($"No {Environment.Version.Major}.x reference pack under {packs}: the .NET SDK is needed to compile the docs' blocks.");
        var generator = new AnalyzerFileReference(Path.Combine(pack, "analyzers", "dotnet", "cs", "System.Text.Json.SourceGeneration.dll"), new DefaultLoader());
        return generator.GetGenerators(LanguageNames.CSharp).ToArray();
    });

    private static bool HasMetadata(string path)
    {
        using FileStream stream = File.OpenRead(path);
        using var reader = new PEReader(stream);
        return reader.HasMetadata;
    }

    private static bool IsUsing(string line) => line.StartsWith("using ", StringComparison.Ordinal) && line.EndsWith(';') && !line.Contains('=', StringComparison.Ordinal);

    private static string[] Lines(string text) => text.Split('\n').Select(l => l.Trim()).Where(l => l.Length > 0).ToArray();

    private static bool ContainsInOrder(string[] source, string[] lines)
    {
        for (int start = 0; start + lines.Length <= source.Length; start++)
        {
            if (source.AsSpan(start, lines.Length).SequenceEqual(lines))
            {
                return true;
            }
        }

        return false;
    }

    [GeneratedRegex("```csharp\n(.*?)```", RegexOptions.Singleline)]
    private static partial Regex CSharpBlock();

    [GeneratedRegex(@"^namespace [\w.]+;\s*$", RegexOptions.Multiline)]
    private static partial Regex NamespaceLine();

    [GeneratedRegex(@"^// Part of (\S+\.cs)\b")]
    private static partial Regex PartOf();

    [GeneratedRegex(@"^// With (\S+\.cs(?: and \S+\.cs)*)")]
    private static partial Regex With();

    private sealed class DefaultLoader : IAnalyzerAssemblyLoader
    {
        public void AddDependencyLocation(string fullPath)
        {
        }

        public Assembly LoadFromPath(string fullPath) => AssemblyLoadContext.Default.LoadFromAssemblyPath(fullPath);
    }
}
