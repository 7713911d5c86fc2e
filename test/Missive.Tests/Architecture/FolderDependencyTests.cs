using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Architecture;

/// <summary>
/// Keeps the folders of src/Missive depending one way: Lexing (the UTF-8/JSON primitives, on the base class library
/// alone) and Envelopes at the bottom; Envelopes ← Buffers ← Serialization ← {Json, Protobuf}; Serialization ←
/// Transport ← {Bus, InMemory}; Envelopes ← Diagnostics ← Bus ← Lambda; everything ← DependencyInjection. The map
/// holds exactly the edges in use.
/// The test reads the source: it collects the top-level types each folder declares, then finds, in
/// every file with comments and string literals removed, each use of a type declared in another folder.
/// </summary>
public sealed partial class FolderDependencyTests
{
    /// <summary>What each folder may use, besides itself.</summary>
    private static readonly Dictionary<string, string[]> Allowed = new(StringComparer.Ordinal)
    {
        ["Lexing"] = [],
        ["Envelopes"] = [],
        ["Buffers"] = ["Envelopes"],
        ["Serialization"] = ["Lexing", "Envelopes", "Buffers"],
        ["Json"] = ["Lexing", "Envelopes", "Serialization"],
        ["Protobuf"] = ["Lexing", "Envelopes", "Buffers", "Serialization"],
        ["Transport"] = ["Lexing", "Envelopes", "Buffers", "Serialization"],
        ["Diagnostics"] = ["Envelopes"],
        ["Bus"] = ["Envelopes", "Serialization", "Transport", "Diagnostics"],
        ["Lambda"] = ["Envelopes", "Transport", "Bus"],
        ["InMemory"] = ["Envelopes", "Transport"],
        ["DependencyInjection"] = ["Envelopes", "Serialization", "Json", "Protobuf", "Transport", "Diagnostics", "Bus", "Lambda", "InMemory"],
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

    private static IEnumerable<(string Folder, string File)> SourceFiles()
    {
        foreach (string folder in Allowed.Keys)
        {
            string path = Path.Combine(SourceRoot, folder);
            if (!Directory.Exists(path))
            {
                continue;
            }

            foreach (string file in Directory.GetFiles(path, "*.cs", SearchOption.AllDirectories))
            {
                yield return (folder, file);
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
