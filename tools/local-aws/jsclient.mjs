// The AWS SDK for JavaScript as a peer of Missive.Aws in the interop tests. One command per run:
//   node jsclient.mjs '<json>'   with { "op": ..., "endpoint": "http://127.0.0.1:P", "region": "eu-west-1", ... }
// ops: createQueue {name, attributes}, createTopic {name, attributes}, subscribe {topicArn, queueArn, raw},
//      send {queueUrl, body, attributes, groupId, dedupId}, publish {topicArn, message, subject, attributes, groupId, dedupId},
//      receive {queueUrl, max, waitSeconds}, delete {queueUrl, receiptHandle}, putEvents {entries}
// Prints the SDK's result as one JSON line; binary attribute values travel as base64.
import { SQSClient, CreateQueueCommand, SendMessageCommand, ReceiveMessageCommand, DeleteMessageCommand, GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { SNSClient, CreateTopicCommand, SubscribeCommand, PublishCommand } from "@aws-sdk/client-sns";
import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";

const args = JSON.parse(process.argv[2]);
const config = {
  endpoint: args.endpoint,
  region: args.region ?? "eu-west-1",
  credentials: {
    accessKeyId: process.env.MISSIVE_TEST_ACCESS_KEY ?? "AKIDMISSIVETEST",
    secretAccessKey: process.env.MISSIVE_TEST_SECRET_KEY ?? "missive/test/secret/key/0123456789abcdef",
  },
};

function toSdkAttributes(attributes) {
  if (!attributes) return undefined;
  const result = {};
  for (const [name, a] of Object.entries(attributes)) {
    result[name] = a.DataType.startsWith("Binary")
      ? { DataType: a.DataType, BinaryValue: Buffer.from(a.BinaryValue, "base64") }
      : { DataType: a.DataType, StringValue: a.StringValue };
  }
  return result;
}

function fromSdkAttributes(attributes) {
  if (!attributes) return {};
  const result = {};
  for (const [name, a] of Object.entries(attributes)) {
    result[name] = a.BinaryValue ? { DataType: a.DataType, BinaryValue: Buffer.from(a.BinaryValue).toString("base64") } : { DataType: a.DataType, StringValue: a.StringValue };
  }
  return result;
}

const sqs = () => new SQSClient(config);
const sns = () => new SNSClient(config);
let result;
switch (args.op) {
  case "createQueue": {
    const created = await sqs().send(new CreateQueueCommand({ QueueName: args.name, Attributes: args.attributes }));
    const attributes = await sqs().send(new GetQueueAttributesCommand({ QueueUrl: created.QueueUrl, AttributeNames: ["QueueArn"] }));
    result = { queueUrl: created.QueueUrl, queueArn: attributes.Attributes.QueueArn };
    break;
  }
  case "createTopic":
    result = { topicArn: (await sns().send(new CreateTopicCommand({ Name: args.name, Attributes: args.attributes }))).TopicArn };
    break;
  case "subscribe":
    result = await sns().send(new SubscribeCommand({ TopicArn: args.topicArn, Protocol: "sqs", Endpoint: args.queueArn, Attributes: args.raw ? { RawMessageDelivery: "true" } : undefined }));
    break;
  case "send":
    result = await sqs().send(new SendMessageCommand({ QueueUrl: args.queueUrl, MessageBody: args.body, MessageAttributes: toSdkAttributes(args.attributes), MessageGroupId: args.groupId, MessageDeduplicationId: args.dedupId }));
    break;
  case "publish":
    result = await sns().send(new PublishCommand({ TopicArn: args.topicArn, Message: args.message, Subject: args.subject, MessageAttributes: toSdkAttributes(args.attributes), MessageGroupId: args.groupId, MessageDeduplicationId: args.dedupId }));
    break;
  case "receive": {
    const received = await sqs().send(new ReceiveMessageCommand({ QueueUrl: args.queueUrl, MaxNumberOfMessages: args.max ?? 10, WaitTimeSeconds: args.waitSeconds ?? 1, MessageAttributeNames: ["All"], MessageSystemAttributeNames: ["All"] }));
    result = (received.Messages ?? []).map((m) => ({ MessageId: m.MessageId, ReceiptHandle: m.ReceiptHandle, Body: m.Body, Attributes: m.Attributes ?? {}, MessageAttributes: fromSdkAttributes(m.MessageAttributes) }));
    break;
  }
  case "delete":
    result = await sqs().send(new DeleteMessageCommand({ QueueUrl: args.queueUrl, ReceiptHandle: args.receiptHandle }));
    break;
  case "putEvents":
    result = await new EventBridgeClient(config).send(new PutEventsCommand({ Entries: args.entries.map((e) => ({ ...e, Time: e.Time ? new Date(e.Time * 1000) : undefined })) }));
    break;
  default:
    throw new Error(`unknown op ${args.op}`);
}
delete result?.$metadata;
process.stdout.write(JSON.stringify(result ?? {}) + "\n");
