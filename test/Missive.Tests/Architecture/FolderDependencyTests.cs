using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Architecture;

/// <summary>
/// Keeps the folders of src/Missive depending one way. A layer is a folder, or a subfolder named in the map (the bus's
/// Publishing, Consuming, Batching and Configuration); a file belongs to the deepest layer that holds it. Lexing (the
/// UTF-8/JSON primitives, on the base class library alone) and Errors (the library's exceptions) at the bottom;
/// Envelopes (the model) above Errors; Transport (the seam a transport implements) and Wrappers (the SQS, SNS and
/// EventBridge shapes, read and written) above Serialization; the bus's subsystems above those; DependencyInjection on
/// top. The map holds exactly the edges in use.
/// The test reads the source: it collects the top-level types each layer declares, then finds, in every file with
/// comments and string literals removed, each use of a type declared in another layer.
/// </summary>
public sealed partial class FolderDependencyTests
{
    /// <summary>What each folder may use, besides itself.</summary>
    private static readonly Dictionary<string, string[]> Allowed = new(StringComparer.Ordinal)
    {
        ["Lexing"] = [],
        ["Errors"] = [],
        ["Envelopes"] = ["Errors"],
        ["Buffers"] = ["Envelopes"],
        ["Serialization"] = ["Lexing", "Errors", "Envelopes", "Buffers"],
        ["Json"] = ["Lexing", "Errors", "Envelopes", "Serialization"],
        ["Protobuf"] = ["Lexing", "Errors", "Envelopes", "Buffers", "Serialization"],
        ["Transport"] = ["Errors", "Envelopes", "Buffers"],
        ["Wrappers"] = ["Lexing", "Errors", "Envelopes", "Buffers", "Serialization", "Transport"],
        ["Diagnostics"] = ["Errors", "Envelopes"],
        ["Offload"] = ["Errors", "Envelopes", "Transport", "Wrappers"], // Wrappers: the NServiceBus shapes whose S3 bodies it fetches
        ["Bus"] = ["Errors", "Transport"],
        ["Bus/Configuration"] = ["Serialization", "Transport", "Wrappers", "Offload"],
        ["Bus/Health"] = ["Errors"],
        ["Bus/Batching"] = ["Errors", "Buffers", "Transport"],
        ["Bus/Publishing"] = ["Errors", "Envelopes", "Buffers", "Serialization", "Transport", "Wrappers", "Diagnostics", "Bus", "Bus/Configuration", "Bus/Health", "Bus/Batching"],
        ["Bus/Consuming"] = ["Errors", "Envelopes", "Transport", "Wrappers", "Diagnostics", "Offload", "Bus", "Bus/Configuration", "Bus/Health", "Bus/Batching"],
        ["Lambda"] = ["Errors", "Envelopes", "Transport", "Wrappers", "Bus", "Bus/Consuming"],
        ["InMemory"] = ["Errors", "Envelopes", "Transport"],
        ["DependencyInjection"] = ["Errors", "Envelopes", "Serialization", "Json", "Protobuf", "Transport", "Wrappers", "Diagnostics", "Offload", "Bus", "Bus/Configuration", "Bus/Health", "Bus/Publishing", "Bus/Consuming", "Lambda", "InMemory"],
    };

    private static string SourceRoot => Path.Combine(RepositoryPaths.Root, "src", "Missive");

    [Fact]
    public void EveryFolder_IsInTheLayering()
    {
        string[] folders = Directory.GetDirectories(SourceRoot)
            .Select(Path.GetFileName)
            .Where(name => name is not ("bin" or "obj"))
            .Select(name => name!)
            .ToArray();

        Assert.Empty(folders.Except(Allowed.Keys));
        Assert.Empty(Directory.GetFiles(SourceRoot, "*.cs")); // every source file lives in a layer
        foreach (string layer in Allowed.Keys.Where(k => k.Contains('/', StringComparison.Ordinal)))
        {
            Assert.True(Directory.Exists(Path.Combine(SourceRoot, layer)), $"The layer {layer} has no folder");
        }
    }

    [Fact]
    public void EverySourceFile_DeclaresOneTopLevelType_NamedAsTheFile()
    {
        var problems = new List<string>();
        foreach (string project in new[] { "Missive", "Missive.Aws", "Missive.HealthChecks" })
        {
            string root = Path.Combine(RepositoryPaths.Root, "src", project);
            foreach (string file in Directory.GetFiles(root, "*.cs", SearchOption.AllDirectories).Where(f => !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal)))
            {
                string[] types = TopLevelDeclaration().Matches(File.ReadAllText(file)).Select(m => m.Groups["name"].Value).ToArray();
                string name = Path.GetFileNameWithoutExtension(file).Split('.')[0]; // X.Read.cs is a part of X
                if (types.Length > 1 || (types.Length == 1 && types[0] != name && types[0] + "OfT" != name))
                {
                    problems.Add($"{Path.GetRelativePath(RepositoryPaths.Root, file)}: {string.Join(", ", types)}");
                }
            }
        }

        Assert.True(problems.Count == 0, "Files that do not hold exactly their own type:\n" + string.Join("\n", problems));
    }

    [Fact]
    public void Folders_ReferenceOnlyTheLayersBelowThem()
    {
        Dictionary<string, string> owner = DeclaredTypes();
        var violations = new List<string>();
        foreach ((string folder, string file) in SourceFiles())
        {
            string code = StripCommentsAndStrings(File.ReadAllText(file));
            foreach (string used in Identifiers(code).Distinct())
            {
                if (owner.TryGetValue(used, out string? declaredIn) && declaredIn != folder && !Allowed[folder].Contains(declaredIn))
                {
                    violations.Add($"{Path.GetRelativePath(SourceRoot, file)} uses {used} from {declaredIn}");
                }
            }
        }

        Assert.True(violations.Count == 0, "Folder references against the layering:\n" + string.Join("\n", violations));
    }

    [Fact]
    public void EveryAllowedEdge_IsInUse()
    {
        // The map says what is, not what might be: an edge no file uses is taken out, so a new dependency is a
        // decision made in this file.
        HashSet<(string From, string To)> used = UsedEdges();
        var unused = new List<string>();
        foreach ((string folder, string[] below) in Allowed)
        {
            foreach (string to in below)
            {
                if (!used.Contains((folder, to)))
                {
                    unused.Add($"{folder} -> {to}");
                }
            }
        }

        Assert.True(unused.Count == 0, "Allowed edges no file uses (take them out of the map):\n" + string.Join("\n", unused));
    }

    [Fact]
    public void Lexing_UsesNothingOfMissive_SoMissiveAwsCanCompileItsFiles()
    {
        // The lexing floor depends on the base class library alone: that is what lets another assembly (Missive.Aws,
        // for message bodies) take its files as linked source instead of reaching into Missive's internals.
        Assert.Empty(Allowed["Lexing"]);
        Assert.DoesNotContain(UsedEdges(), edge => edge.From == "Lexing");
    }

    private static HashSet<(string From, string To)> UsedEdges()
    {
        Dictionary<string, string> owner = DeclaredTypes();
        var used = new HashSet<(string, string)>();
        foreach ((string folder, string file) in SourceFiles())
        {
            foreach (string name in Identifiers(StripCommentsAndStrings(File.ReadAllText(file))))
            {
                if (owner.TryGetValue(name, out string? declaredIn) && declaredIn != folder)
                {
                    used.Add((folder, declaredIn));
                }
            }
        }

        return used;
    }

    [Fact]
    public void Layering_HasNoCycle()
    {
        // Depth-first search over the allowed edges: a layer reached again while on the path is a cycle.
        var state = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (string folder in Allowed.Keys)
        {
            Visit(folder, state, []);
        }

        static void Visit(string folder, Dictionary<string, int> state, List<string> path)
        {
            if (state.TryGetValue(folder, out int s))
            {
                Assert.True(s == 2, "Cycle: " + string.Join(" -> ", path.Append(folder)));
                return;
            }

            state[folder] = 1;
            path.Add(folder);
            foreach (string below in Allowed[folder])
            {
                Visit(below, state, path);
            }

            path.RemoveAt(path.Count - 1);
            state[folder] = 2;
        }
    }

    [Fact]
    public void Checker_FindsAReferenceAgainstTheLayering()
    {
        // The checker itself: a use of a Transport type in Envelopes code is found, a comment or string is not.
        Dictionary<string, string> owner = DeclaredTypes();
        string code = StripCommentsAndStrings("var x = new SqsSendRequest(); // InboundMessageReader\n string s = \"OutboundMessageWriter\";");
        string[] found = Identifiers(code).Where(owner.ContainsKey).ToArray();
        Assert.Equal(["SqsSendRequest"], found);
        Assert.Equal("Transport", owner["SqsSendRequest"]);
        Assert.DoesNotContain("Transport", Allowed["Envelopes"]);
    }

    /// <summary>Every source file with its layer: the deepest folder of the map that holds it.</summary>
    private static IEnumerable<(string Folder, string File)> SourceFiles()
    {
        foreach (string file in Directory.GetFiles(SourceRoot, "*.cs", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(SourceRoot, Path.GetDirectoryName(file)!).Replace('\\', '/');
            if (relative.StartsWith("bin", StringComparison.Ordinal) || relative.StartsWith("obj", StringComparison.Ordinal) || relative == ".")
            {
                continue;
            }

            string? layer = Allowed.Keys
                .Where(k => relative == k || relative.StartsWith(k + "/", StringComparison.Ordinal))
                .MaxBy(k => k.Length);
            if (layer is not null)
            {
                yield return (layer, file);
            }
        }
    }

    /// <summary>Top-level types (declared at the start of a line, as file-scoped namespaces leave them) by the folder that declares them.</summary>
    private static Dictionary<string, string> DeclaredTypes()
    {
        var owner = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach ((string folder, string file) in SourceFiles())
        {
            foreach (Match match in TopLevelDeclaration().Matches(File.ReadAllText(file)))
            {
                string name = match.Groups["name"].Value;
                Assert.True(!owner.TryGetValue(name, out string? other) || other == folder, $"{name} is declared in both {other} and {folder}");
                owner[name] = folder;
            }
        }

        Assert.True(owner.Count > 50, "Too few types were found: the declaration pattern no longer matches the source.");
        return owner;
    }

    private static IEnumerable<string> Identifiers(string code)
    {
        foreach (Match match in Identifier().Matches(code))
        {
            yield return match.Value;
        }
    }

    /// <summary>Removes comments, string and character literals (raw, verbatim and interpolated ones included), keeping line structure.</summary>
    private static string StripCommentsAndStrings(string code) => CommentOrLiteral().Replace(code, m => m.Value.StartsWith("//", StringComparison.Ordinal) ? string.Empty : " ");

    [GeneratedRegex(@"^(?:public|internal)\s+(?:(?:static|sealed|abstract|partial|readonly|ref|record)\s+)*(?:class|struct|interface|enum|record)\s+(?<name>[A-Za-z_][A-Za-z0-9_]*)", RegexOptions.Multiline)]
    private static partial Regex TopLevelDeclaration();

    [GeneratedRegex(@"\b[A-Za-z_][A-Za-z0-9_]*\b")]
    private static partial Regex Identifier();

    [GeneratedRegex(@"//[^\n]*|/\*.*?\*/|"""""".*?""""""|@""(?:[^""]|"""")*""|\$?""(?:\\.|[^""\\\n])*""|'(?:\\.|[^'\\\n])+'", RegexOptions.Singleline)]
    private static partial Regex CommentOrLiteral();
}
