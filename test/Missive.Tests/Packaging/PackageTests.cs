using System;
using System.Diagnostics;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Packaging;

/// <summary>`dotnet pack` of the library gives a package with what a NuGet user needs.</summary>
public sealed class PackageTests
{
    [Theory]
    [InlineData("Missive")]
    [InlineData("Missive.Aws")]
    [InlineData("Missive.HealthChecks")]
    public void Pack_ProducesAPackageWithReadmeLicenseDocsSymbolsAndRepositoryMetadata(string project)
    {
        string output = Path.Combine(Path.GetTempPath(), "missive-pack-" + Guid.NewGuid().ToString("N"));
        try
        {
            var pack = Process.Start(new ProcessStartInfo("dotnet", $"pack \"{Path.Combine(RepositoryPaths.Root, "src", project, project + ".csproj")}\" -c Release -o \"{output}\" --nologo")
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            })!;
            string log = pack.StandardOutput.ReadToEnd() + pack.StandardError.ReadToEnd();
            pack.WaitForExit();
            Assert.True(pack.ExitCode == 0, log);

            string package = Directory.GetFiles(output, project + ".0*.nupkg").Single();
            Assert.Single(Directory.GetFiles(output, project + ".0*.snupkg"));
            using ZipArchive zip = ZipFile.OpenRead(package);
            string[] entries = zip.Entries.Select(e => e.FullName).ToArray();
            Assert.Contains($"lib/net10.0/{project}.dll", entries);
            Assert.Contains($"lib/net10.0/{project}.xml", entries);
            Assert.Contains("README.md", entries);
            using (var packedReadme = new StreamReader(zip.GetEntry("README.md")!.Open()))
            {
                Assert.Equal(File.ReadAllText(Path.Combine(RepositoryPaths.Root, "src", project, "README.md")), packedReadme.ReadToEnd()); // the package's own README
            }

            XDocument nuspec = XDocument.Load(zip.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal)).Open());
            XNamespace ns = nuspec.Root!.Name.Namespace;
            XElement metadata = nuspec.Root.Element(ns + "metadata")!;
            Assert.Equal("expression", metadata.Element(ns + "license")!.Attribute("type")!.Value);
            Assert.Equal("Apache-2.0", metadata.Element(ns + "license")!.Value);
            Assert.Equal("README.md", metadata.Element(ns + "readme")!.Value);
            Assert.Equal("git", metadata.Element(ns + "repository")!.Attribute("type")!.Value);
            Assert.False(string.IsNullOrEmpty(metadata.Element(ns + "description")!.Value));

            // Missive depends only on System.Text.Json (in the framework) and Microsoft.Extensions packages; Missive.Aws adds
            // Missive itself, AWSSDK.Core, AWSSDK.S3 (the payload store), AWSSDK.SQS (the SDK's SQS client, a choice),
            // AWSSDK.Extensions.NETCore.Setup (the application's AWS options), Microsoft.Extensions.Http and Polly.Core;
            // Missive.HealthChecks Missive and the
            // health-check abstractions' package.
            string[] dependencies = metadata.Descendants(ns + "dependency").Select(d => d.Attribute("id")!.Value).ToArray();
            string[] allowed = project == "Missive" ? [] : ["Missive", "AWSSDK.Core", "AWSSDK.S3", "AWSSDK.SQS", "AWSSDK.Extensions.NETCore.Setup", "Polly.Core"];
            Assert.NotEmpty(dependencies);
            Assert.All(dependencies, id => Assert.True(id.StartsWith("Microsoft.Extensions.", StringComparison.Ordinal) || allowed.Contains(id), id));
            if (project == "Missive.Aws")
            {
                Assert.Equal(["AWSSDK.Core", "AWSSDK.Extensions.NETCore.Setup", "AWSSDK.S3", "AWSSDK.SQS", "Microsoft.Extensions.Http", "Missive", "Polly.Core"], dependencies.Order(StringComparer.Ordinal));
            }

            if (project == "Missive.HealthChecks")
            {
                Assert.Equal(["Microsoft.Extensions.Diagnostics.HealthChecks", "Missive"], dependencies.Order(StringComparer.Ordinal));
            }
        }
        finally
        {
            if (Directory.Exists(output))
            {
                Directory.Delete(output, recursive: true);
            }
        }
    }

    [Fact]
    public void TheReadmesLocalFeed_RestoresThePackage_AndLeavesTheUserWideNuGetConfigAlone()
    {
        // The README's second way to install, as written: its commands, run in order from a new console app next to the
        // clone ("../missive"), must restore Missive from the local feed and write the feed into the app's nuget.config
        // only: a user-wide source would follow the user into every other restore on the machine.
        string readme = File.ReadAllText(Path.Combine(RepositoryPaths.Root, "README.md")).ReplaceLineEndings("\n");
        Match section = Regex.Match(readme, "or pack them into a local feed[^\n]*\n[^\n]*\n\n((?:    [^\n]+\n)+)");
        Assert.True(section.Success, "the README's local-feed commands were not found");
        string[] commands = section.Groups[1].Value.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(c => c.Trim()).ToArray();
        string userConfig = OperatingSystem.IsWindows()
            ? Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.ApplicationData), "NuGet", "NuGet.Config")
            : Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".nuget", "NuGet", "NuGet.Config");
        byte[]? before = File.Exists(userConfig) ? File.ReadAllBytes(userConfig) : null;
        string root = Path.Combine(Path.GetTempPath(), "missive-install-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(root);
        try
        {
            // A copy of what packing Missive reads, not a link to this clone: packing from another path would build
            // src/Missive again into its own obj folder while other test projects compile against it.
            string clone = Path.Combine(root, "missive");
            foreach (string file in new[] { "Directory.Build.props", "Directory.Packages.props", ".editorconfig" })
            {
                CopyTree(Path.Combine(RepositoryPaths.Root, file), Path.Combine(clone, file));
            }

            CopyTree(Path.Combine(RepositoryPaths.Root, "src", "Missive"), Path.Combine(clone, "src", "Missive"));
            Run(root, "dotnet new console -o Orders");
            string app = Path.Combine(root, "Orders");
            foreach (string command in commands)
            {
                Run(app, command);
            }

            byte[]? after = File.Exists(userConfig) ? File.ReadAllBytes(userConfig) : null;
            Assert.True(before is null ? after is null : after is not null && before.AsSpan().SequenceEqual(after), $"the README's commands changed {userConfig}");
            Assert.Contains("missive-local", File.ReadAllText(Path.Combine(app, "nuget.config")), StringComparison.Ordinal);
            Assert.Contains("\"Missive/0.1.0\"", File.ReadAllText(Path.Combine(app, "obj", "project.assets.json")), StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }

    /// <summary>Copies a file, or a folder without its build outputs (<c>bin</c>, <c>obj</c>).</summary>
    private static void CopyTree(string source, string target)
    {
        if (File.Exists(source))
        {
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(source, target);
            return;
        }

        Directory.CreateDirectory(target);
        foreach (string file in Directory.GetFiles(source))
        {
            File.Copy(file, Path.Combine(target, Path.GetFileName(file)));
        }

        foreach (string folder in Directory.GetDirectories(source).Where(d => Path.GetFileName(d) is not ("bin" or "obj")))
        {
            CopyTree(folder, Path.Combine(target, Path.GetFileName(folder)));
        }
    }

    private static void Run(string directory, string command)
    {
        string[] words = command.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        var start = new ProcessStartInfo(words[0]) { WorkingDirectory = directory, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string word in words.Skip(1))
        {
            start.ArgumentList.Add(word);
        }

        using Process process = Process.Start(start)!;
        string log = process.StandardOutput.ReadToEnd() + process.StandardError.ReadToEnd();
        Assert.True(process.WaitForExit(TimeSpan.FromMinutes(3)), $"{command} did not end in 3 minutes");
        Assert.True(process.ExitCode == 0, $"{command} failed:\n{log}");
    }
}
