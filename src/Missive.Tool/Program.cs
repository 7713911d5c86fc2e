using Missive.Tool;

// missive: looks into the queues that carry Missive's messages (see README.md and docs/operating-tool.md).
return await ToolCommands.RunAsync(args, System.Console.Out, System.Console.Error).ConfigureAwait(false);
