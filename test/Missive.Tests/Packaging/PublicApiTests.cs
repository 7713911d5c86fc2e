using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Packaging;

/// <summary>
/// Tracks the public API: the surface of Missive.dll must equal the approved listing in
/// PublicApi/Missive.approved.txt. A change that adds, removes or alters a public member fails here
/// until the listing is updated on purpose (run with MISSIVE_APPROVE_API=1 to rewrite it).
/// </summary>
public sealed class PublicApiTests
{
    [Theory]
    [InlineData("Missive")]
    [InlineData("Missive.Aws")]
    [InlineData("Missive.HealthChecks")]
    public void PublicApi_MatchesTheApprovedListing(string package)
    {
        Assembly assembly = package switch
        {
            "Missive" => typeof(MessageEnvelope).Assembly,
            "Missive.Aws" => typeof(Missive.Aws.AwsTransport).Assembly,
            _ => typeof(Missive.HealthChecks.QueuePollerHealthCheck).Assembly,
        };
        string approvedPath = Path.Combine(RepositoryPaths.Root, "test", "Missive.Tests", "PublicApi", package + ".approved.txt");
        string actual = string.Join("\n", Describe(assembly)) + "\n";
        if (Environment.GetEnvironmentVariable("MISSIVE_APPROVE_API") == "1")
        {
            File.WriteAllText(approvedPath, actual);
        }

        string approved = File.Exists(approvedPath) ? File.ReadAllText(approvedPath).Replace("\r\n", "\n", StringComparison.Ordinal) : string.Empty;
        if (approved != actual)
        {
            File.WriteAllText(Path.ChangeExtension(approvedPath, ".received.txt"), actual);
            string[] expectedLines = approved.Split('\n');
            string[] actualLines = actual.Split('\n');
            string added = string.Join("\n  ", actualLines.Except(expectedLines).Take(20));
            string removed = string.Join("\n  ", expectedLines.Except(actualLines).Take(20));
            Assert.Fail($"The public API changed. Added:\n  {added}\nRemoved:\n  {removed}\nIf intended, run the tests with MISSIVE_APPROVE_API=1 and commit PublicApi/{package}.approved.txt.");
        }
    }

    private static List<string> Describe(Assembly assembly)
    {
        var lines = new List<string>();
        foreach (Type type in assembly.GetExportedTypes())
        {
            string kind = type.IsEnum ? "enum" : type.IsInterface ? "interface" : type.IsValueType ? "struct" : type.IsAbstract && type.IsSealed ? "static class" : type.IsAbstract ? "abstract class" : type.IsSealed ? "sealed class" : "class";
            lines.Add($"{kind} {Name(type)}{(type.BaseType is { } b && b != typeof(object) && b != typeof(ValueType) && b != typeof(Enum) ? " : " + Name(b) : string.Empty)}");
            const BindingFlags Flags = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
            foreach (MemberInfo member in type.GetMembers(Flags))
            {
                if (Visible(member) && Describe(member) is { } text)
                {
                    // A member kept for its old callers says so: the renames show with their forwarders.
                    string obsolete = member.GetCustomAttribute<ObsoleteAttribute>() is not null && member.GetCustomAttribute<System.Runtime.CompilerServices.CompilerFeatureRequiredAttribute>() is null ? "[Obsolete] " : string.Empty; // not the mark the compiler puts on constructors of types with required members
                    lines.Add($"  {Name(type)}.{obsolete}{text}");
                }
            }
        }

        lines.Sort(StringComparer.Ordinal);
        return lines;
    }

    private static bool Visible(MemberInfo member) => member switch
    {
        MethodBase m => m.IsPublic || m.IsFamily || m.IsFamilyOrAssembly,
        FieldInfo f => f.IsPublic || f.IsFamily || f.IsFamilyOrAssembly,
        PropertyInfo p => (p.GetMethod is { } g && Visible(g)) || (p.SetMethod is { } s && Visible(s)),
        EventInfo e => e.AddMethod is { } a && Visible(a),
        Type t => t.IsNestedPublic || t.IsNestedFamily,
        _ => false,
    };

    private static string? Describe(MemberInfo member) => member switch
    {
        ConstructorInfo c => $".ctor({Parameters(c)})",
        MethodInfo m when m.IsSpecialName => null, // property and event accessors are listed with their property or event
        MethodInfo m => $"{(m.IsStatic ? "static " : string.Empty)}{(m.IsAbstract ? "abstract " : m.IsVirtual && !m.IsFinal ? "virtual " : string.Empty)}{Name(m.ReturnType)} {m.Name}{(m.IsGenericMethod ? "<" + string.Join(", ", m.GetGenericArguments().Select(a => a.Name)) + ">" : string.Empty)}({Parameters(m)})",
        PropertyInfo p => $"{Name(p.PropertyType)} {p.Name} {{ {(p.GetMethod is { } g && Visible(g) ? "get; " : string.Empty)}{(p.SetMethod is { } s && Visible(s) ? (s.ReturnParameter.GetRequiredCustomModifiers().Any(t => t.Name == "IsExternalInit") ? "init; " : "set; ") : string.Empty)}}}",
        FieldInfo f => $"{(f.IsLiteral ? "const " : f.IsStatic ? "static " : string.Empty)}{(f.IsInitOnly ? "readonly " : string.Empty)}{Name(f.FieldType)} {f.Name}{(f.IsLiteral ? " = " + f.GetRawConstantValue() : string.Empty)}",
        EventInfo e => $"event {Name(e.EventHandlerType!)} {e.Name}",
        _ => null,
    };

    private static string Parameters(MethodBase method)
        => string.Join(", ", method.GetParameters().Select(p => (p.IsIn ? "in " : p.IsOut ? "out " : p.ParameterType.IsByRef ? "ref " : string.Empty) + Name(p.ParameterType) + " " + p.Name + (p.HasDefaultValue ? " = " + (p.DefaultValue ?? "null") : string.Empty)));

    private static string Name(Type type)
    {
        if (type.IsByRef)
        {
            return Name(type.GetElementType()!);
        }

        if (type.IsGenericParameter)
        {
            return type.Name;
        }

        string name = type.IsNested ? Name(type.DeclaringType!) + "." + type.Name : type.Namespace + "." + type.Name;
        if (type.IsGenericType)
        {
            name = name[..name.IndexOf('`', StringComparison.Ordinal)] + "<" + string.Join(", ", type.GetGenericArguments().Select(Name)) + ">";
        }

        return name;
    }
}
