using Microsoft.Extensions.Hosting;
using Missive.Samples.WorkerService;

// A generic-host worker: publishes orders to an SNS topic and handles them from the subscribed SQS
// queue, configured from appsettings.json: on the in-memory broker by default, on AWS (or an emulator)
// with Missive:Transport=Aws and the Missive:Aws section. Ctrl+C stops it gracefully.
using IHost host = WorkerHost.Build(args);
await host.RunAsync();
