using System;
using Missive.Samples.Interop;

// A Missive service joining a system whose other services run MassTransit and NServiceBus, on one queue: the sample
// puts on it an order as a MassTransit service publishes it and a payment as an NServiceBus endpoint sends it (their
// own bodies and attributes), handles both, and answers each bus in its own format (to the queues its services read).
// On the in-memory broker by default; on the local endpoint (or AWS) with --Missive:Transport=Aws and the application's
// AWS settings (AWS_ENDPOINT_URL, AWS_REGION, the AWS section).
foreach (string line in await ShippingHost.RunOnceAsync(args))
{
    Console.WriteLine(line);
}
