using Microsoft.Extensions.Hosting;
using Missive.Samples.WorkerService;

// A generic-host worker: publishes orders to an SNS topic and handles them from the subscribed SQS
// queue, on the in-memory broker, configured from appsettings.json. Ctrl+C stops it gracefully.
using IHost host = WorkerHost.Build(args);
await host.RunAsync();
