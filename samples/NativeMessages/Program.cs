using System;
using Missive.Samples.NativeMessages;

// One queue, three kinds of messages: S3's notification of a created object, EC2's state change through EventBridge,
// and the application's own orders (CloudEvents envelopes). On the in-memory broker by default; on the local endpoint
// (or AWS) with --Missive:Transport=Aws and the application's AWS settings (AWS_ENDPOINT_URL, AWS_REGION, the AWS section). The sample puts S3's and EventBridge's bodies on
// the queue itself, as those services would deliver them, publishes one order, and prints what each handler got.
foreach (string line in await InboxHost.RunOnceAsync(args))
{
    Console.WriteLine(line);
}
