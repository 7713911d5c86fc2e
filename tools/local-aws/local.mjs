// One command for a local SQS/SNS endpoint on 127.0.0.1, with the topics, queues and subscriptions a sample needs:
//
//   node tools/local-aws/local.mjs samples/WorkerService/local-aws.json [--port 4566] [--no-signature-check]
//
// It is the emulator the Missive.Aws tests run against (server.mjs: fauxqs behind a proxy that checks every request's
// SigV4 signature with the AWS SDK for JavaScript's signer), installs its own npm packages (npm ci, pinned by
// package-lock.json) when they are missing, creates what the setup file lists, prints how to point an application at
// it, and runs until Ctrl+C. The setup file's format, with an example of each kind of resource, is in
// docs/local-endpoint.md (example-setup.json here is that example).
import { existsSync, readFileSync } from "node:fs";
import { execSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const setupFile = args.find((a) => !a.startsWith("--"));
const portIndex = args.indexOf("--port");
const port = portIndex >= 0 ? Number(args[portIndex + 1]) : 4566;
const verifySignatures = !args.includes("--no-signature-check");
if (!setupFile || !Number.isInteger(port)) {
  console.error("usage: node tools/local-aws/local.mjs <setup.json> [--port 4566] [--no-signature-check]");
  process.exit(2);
}

if (!existsSync(join(here, "node_modules", "fauxqs", "package.json"))) {
  console.log("Installing the emulator's npm packages (npm ci in tools/local-aws)...");
  execSync("npm ci --no-audit --no-fund", { cwd: here, stdio: "inherit" });
}

const { startEmulator, credentials } = await import("./server.mjs");
const setup = JSON.parse(readFileSync(setupFile, "utf8"));
const region = setup.region ?? "eu-west-1";
const account = "000000000000"; // fauxqs's account
let emulator;
try {
  emulator = await startEmulator({ port, verifySignatures, region });
} catch (e) {
  console.error(`The local endpoint did not start: ${e.message}`);
  process.exit(1);
}

async function sqs(operation, body) {
  const response = await fetch(emulator.fauxqs, {
    method: "POST",
    headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": `AmazonSQS.${operation}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${operation}: ${await response.text()}`);
  return response.json();
}

async function sns(params) {
  const response = await fetch(emulator.fauxqs, { method: "POST", body: new URLSearchParams({ ...params, Version: "2010-03-31" }) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${params.Action}: ${text}`);
  return text;
}

const queueArn = (name) => `arn:aws:sqs:${region}:${account}:${name}`;
const lines = [];
for (const queue of setup.queues ?? []) {
  const attributes = {};
  if (queue.fifo || queue.name.endsWith(".fifo")) attributes.FifoQueue = "true";
  if (queue.contentBasedDeduplication) attributes.ContentBasedDeduplication = "true";
  if (queue.deadLetterQueue) {
    attributes.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: queueArn(queue.deadLetterQueue), maxReceiveCount: String(queue.maxReceiveCount ?? 5) });
  }
  await sqs("CreateQueue", { QueueName: queue.name, Attributes: attributes });
  const kind = attributes.FifoQueue ? ` (FIFO${queue.contentBasedDeduplication ? ", content-based deduplication" : ""})` : "";
  lines.push(`  queue ${queue.name}${kind}${queue.deadLetterQueue ? ` (dead-lettered to ${queue.deadLetterQueue} after ${queue.maxReceiveCount ?? 5} receives)` : ""}`);
}

for (const topic of setup.topics ?? []) {
  const attributes = {};
  const topicAttributes = [];
  if (topic.name.endsWith(".fifo")) topicAttributes.push(["FifoTopic", "true"]);
  if (topic.contentBasedDeduplication) topicAttributes.push(["ContentBasedDeduplication", "true"]);
  topicAttributes.forEach(([key, value], i) => {
    attributes[`Attributes.entry.${i + 1}.key`] = key;
    attributes[`Attributes.entry.${i + 1}.value`] = value;
  });
  const xml = await sns({ Action: "CreateTopic", Name: topic.name, ...attributes });
  const arn = /<TopicArn>([^<]+)<\/TopicArn>/.exec(xml)[1];
  for (const subscription of topic.subscriptions ?? []) {
    const raw = subscription.raw ? { "Attributes.entry.1.key": "RawMessageDelivery", "Attributes.entry.1.value": "true" } : {};
    await sns({ Action: "Subscribe", TopicArn: arn, Protocol: "sqs", Endpoint: queueArn(subscription.queue), ...raw });
  }
  lines.push(`  topic ${topic.name}: ${arn}${(topic.subscriptions ?? []).map((s) => ` -> ${s.queue}${s.raw ? " (raw)" : ""}`).join("")}`);
}

console.log(`Local SQS and SNS on ${emulator.proxy} (region ${region}), with:`);
for (const line of lines) console.log(line);
console.log(verifySignatures
  ? `Every request's SigV4 signature is checked: sign with AWS_ACCESS_KEY_ID=${credentials.accessKeyId} AWS_SECRET_ACCESS_KEY=${credentials.secretAccessKey}`
  : "Signatures are not checked: any credentials will do.");
console.log("Point the application at it with these variables, in the shell that runs it:");
console.log(`  AWS_ENDPOINT_URL=${emulator.proxy} AWS_REGION=${region}${verifySignatures ? ` AWS_ACCESS_KEY_ID=${credentials.accessKeyId} AWS_SECRET_ACCESS_KEY=${credentials.secretAccessKey}` : ""}`);
console.log("(or the AWS section's ServiceURL and Region in its configuration). The AWS CLI, with the same credentials:");
console.log(`  aws --endpoint-url ${emulator.proxy} --region ${region} sqs list-queues`);
console.log("Ctrl+C stops it.");
console.log(`ready: ${emulator.proxy}`);

const stop = async () => { await emulator.close(); process.exit(0); };
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
