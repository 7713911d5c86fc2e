using System;
using System.Diagnostics;
using System.IO;
using System.IO.Compression;
using System.Linq;
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
}
