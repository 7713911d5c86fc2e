// The SNS/SQS emulator of the Missive.Aws tests and of the local endpoint recipe, as a module (entry points:
// emulator.mjs for the tests, local.mjs for a developer's machine):
//  - fauxqs, an SNS/SQS emulator written by others, listening on 127.0.0.1 and a free port;
//  - in front of it, a proxy on 127.0.0.1 that recomputes every request's SigV4 signature with @smithy/signature-v4
//    (the signer inside the AWS SDK for JavaScript) and refuses any mismatch with 403 (unless told not to check),
//    injects faults on request, and answers EventBridge calls (fauxqs has no EventBridge) from a canned response
//    while recording what was sent.
//    Like AWS, it refuses a request signed more than 15 minutes off its own clock (403, "Signature expired" or
//    "Signature not yet current", with its Date header), so that clock-skew correction can be tested.
//
// Control endpoints (on the proxy, under /__control/):
//   POST faults    body: [{ "kind": "status"|"throttle"|"drop"|"delay"|"dropResponse"|"corruptBodyDigest", "count": n, "every": k,
//                           "status": 500, "delayMs": 0, "match": "SendMessage", "bodyContains": "…" }]  (replaces the list)
//                  a fault fires on every k-th request it matches (k = 1 by default), n times in all;
//                  corruptBodyDigest spoils the MD5OfBody of every received message whose body holds bodyContains
//   GET  sent      how many times each message body was sent to fauxqs and accepted (SendMessage, SendMessageBatch, Publish)
//   POST eventbridge  body: the JSON response PutEvents calls get (default: every entry succeeds)
//   GET  captured  the EventBridge requests recorded so far (method, path, headers, body)
//   GET  requests  the last 500 signed requests (method, path, headers, body), oldest first
//   GET  stats     { verified, rejected, skewed, faults, forwarded }
//   POST reset     clears faults, captures and stats
import http from "node:http";
import { once } from "node:events";
import { buildApp } from "fauxqs";
import { SignatureV4 } from "@smithy/signature-v4";
import { Sha256 } from "@aws-crypto/sha256-js";

/** The credentials requests must be signed with (the tests' and the local recipe's; overridable by environment). */
export const credentials = {
  accessKeyId: process.env.MISSIVE_TEST_ACCESS_KEY ?? "AKIDMISSIVETEST",
  secretAccessKey: process.env.MISSIVE_TEST_SECRET_KEY ?? "missive/test/secret/key/0123456789abcdef",
};

/**
 * Starts fauxqs on 127.0.0.1 and a free port, and the proxy in front of it on 127.0.0.1 and `port` (0: a free one).
 * `verifySignatures: false` forwards requests without checking them. Returns { proxy, fauxqs, close }.
 */
export async function startEmulator({ port = 0, verifySignatures = true, region = "eu-west-1" } = {}) {
  const app = buildApp({ logger: false, defaultRegion: region });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const fauxqsPort = app.server.address().port;

  const state = { faults: [], captured: [], requests: [], sent: {}, eventBridgeResponse: null, stats: { verified: 0, rejected: 0, skewed: 0, faults: 0, forwarded: 0 } };

  /** The operation a request names: X-Amz-Target's suffix (JSON protocols) or the Query protocol's Action. */
  function operationOf(headers, body) {
    const target = headers["x-amz-target"];
    if (target) return target.substring(target.indexOf(".") + 1);
    const match = /(?:^|&)Action=([^&]*)/.exec(body.toString("utf8"));
    return match ? decodeURIComponent(match[1]) : "";
  }

  /** Recomputes the signature the way the AWS SDK for JavaScript would, with the scope the request claims. */
  async function verifySignature(req, body) {
    const authorization = req.headers["authorization"] ?? "";
    const parsed = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
    if (!parsed) return `no SigV4 Authorization header (${authorization ? "malformed" : "missing"})`;
    const [, accessKeyId, , region, service, signedHeaders, signature] = parsed;
    if (accessKeyId !== credentials.accessKeyId) return `unknown access key ${accessKeyId}`;
    const amzDate = req.headers["x-amz-date"];
    if (!amzDate) return "no x-amz-date header";
    const url = new URL(req.url, `http://${req.headers.host}`);
    const headers = {};
    for (const name of signedHeaders.split(";")) {
      const value = req.headers[name];
      if (value === undefined) return `signed header ${name} is missing`;
      headers[name] = Array.isArray(value) ? value.join(",") : value;
    }
    const query = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const signer = new SignatureV4({ credentials: { ...credentials, sessionToken: req.headers["x-amz-security-token"] }, region, service, sha256: Sha256, uriEscapePath: true, applyChecksum: false });
    const date = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
    const signed = await signer.sign(
      { method: req.method, protocol: "http:", hostname: url.hostname, port: url.port ? Number(url.port) : undefined, path: url.pathname, query, headers, body },
      { signingDate: date, unsignableHeaders: new Set(), signableHeaders: new Set(Object.keys(headers)) });
    const expected = /Signature=([0-9a-f]{64})/.exec(signed.headers["authorization"])[1];
    return expected === signature ? null : `signature mismatch (expected ${expected}, got ${signature})`;
  }

  const SKEW_LIMIT_MS = 15 * 60 * 1000;

  /** AWS's refusal of a request signed too far from the service's clock, or null when its time is within 15 minutes. */
  function skewProblem(req) {
    const amzDate = req.headers["x-amz-date"];
    if (!amzDate) return null;
    const signed = Date.parse(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
    const now = Date.now();
    const stamp = (ms) => new Date(ms).toISOString().replace(/[-:]|\.\d{3}/g, "");
    if (signed < now - SKEW_LIMIT_MS) return `Signature expired: ${amzDate} is now earlier than ${stamp(now - SKEW_LIMIT_MS)} (${stamp(now)} - 15 min.)`;
    if (signed > now + SKEW_LIMIT_MS) return `Signature not yet current: ${amzDate} is still later than ${stamp(now + SKEW_LIMIT_MS)} (${stamp(now)} + 15 min.)`;
    return null;
  }

  /** The message bodies a send request carries, to count what fauxqs accepted. */
  function sentBodies(operation, body) {
    try {
      if (operation === "SendMessage") return [JSON.parse(body.toString("utf8")).MessageBody];
      if (operation === "SendMessageBatch") return (JSON.parse(body.toString("utf8")).Entries ?? []).map((e) => e.MessageBody);
      if (operation === "Publish") return [new URLSearchParams(body.toString("utf8")).get("Message")];
    } catch { /* not a body of that shape */ }
    return [];
  }

  /** Spoils the MD5OfBody of the received messages whose body holds the marker, as a corrupted answer would. */
  function corruptDigests(upstream, marker) {
    try {
      const answer = JSON.parse(upstream.body.toString("utf8"));
      for (const message of answer.Messages ?? []) {
        if (typeof message.Body === "string" && message.Body.includes(marker)) message.MD5OfBody = "00000000000000000000000000000000";
      }
      upstream.body = Buffer.from(JSON.stringify(answer), "utf8");
      delete upstream.headers["content-length"];
    } catch { /* not JSON: left as it is */ }
  }

  function takeFault(operation) {
    for (const fault of state.faults) {
      if (fault.kind === "corruptBodyDigest") continue; // applied to every receive answer, below
      if (fault.count > 0 && (!fault.match || fault.match === operation)) {
        fault.seen = (fault.seen ?? 0) + 1;
        if (fault.seen % (fault.every ?? 1) !== 0) continue;
        fault.count--;
        state.stats.faults++;
        return fault;
      }
    }
    return null;
  }

  function sendJson(res, status, value, headers = {}) {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(value));
  }

  function errorResponse(res, req, status, code, message) {
    const requestId = "fault-" + Math.random().toString(16).slice(2);
    if (req.headers["x-amz-target"]) {
      sendJson(res, status, { __type: code, message }, { "x-amzn-requestid": requestId, "x-amzn-query-error": `${code};Receiver` });
    } else {
      res.writeHead(status, { "content-type": "text/xml", "x-amzn-requestid": requestId });
      res.end(`<ErrorResponse><Error><Type>Receiver</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`);
    }
  }

  async function control(req, res, body) {
    const path = req.url.substring("/__control/".length);
    if (path === "faults" && req.method === "POST") { state.faults = JSON.parse(body.toString("utf8")); return sendJson(res, 200, { ok: true }); }
    if (path === "eventbridge" && req.method === "POST") { state.eventBridgeResponse = JSON.parse(body.toString("utf8")); return sendJson(res, 200, { ok: true }); }
    if (path === "captured") return sendJson(res, 200, state.captured);
    if (path === "requests") return sendJson(res, 200, state.requests);
    if (path === "stats") return sendJson(res, 200, state.stats);
    if (path === "sent") return sendJson(res, 200, state.sent);
    if (path === "reset" && req.method === "POST") {
      state.faults = []; state.captured = []; state.requests = []; state.sent = {}; state.eventBridgeResponse = null;
      state.stats = { verified: 0, rejected: 0, skewed: 0, faults: 0, forwarded: 0 };
      return sendJson(res, 200, { ok: true });
    }
    sendJson(res, 404, { error: "unknown control path" });
  }

  // fauxqs names a queue URL after its own address (http://sqs.<region>.localhost:<its port>/<account>/<name>); AWS names
  // it after the endpoint the client called. Answers that carry queue URLs are rewritten to the proxy's address as the
  // client used it, and a request's QueueUrl back to fauxqs's form (the region the request is signed for, as fauxqs
  // itself reads it), so that every URL a client sees names the port it chose and works when given back.
  const fauxqsQueueUrl = new RegExp(`http://(?:sqs\\.[a-z0-9-]+\\.localhost|127\\.0\\.0\\.1|localhost):${fauxqsPort}/`, "g");
  const QUEUE_URL_ANSWERS = new Set(["CreateQueue", "GetQueueUrl", "ListQueues", "ListDeadLetterSourceQueues"]);

  function toClientUrls(operation, upstream, clientHost) {
    if (!QUEUE_URL_ANSWERS.has(operation) || !clientHost) return;
    upstream.body = Buffer.from(upstream.body.toString("utf8").replace(fauxqsQueueUrl, `http://${clientHost}/`), "utf8");
    delete upstream.headers["content-length"];
  }

  function toFauxqsUrl(url, req) {
    const clientPrefix = `http://${req.headers.host}/`;
    if (typeof url !== "string" || !url.startsWith(clientPrefix)) return url;
    const signedFor = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(req.headers["authorization"] ?? "");
    return `http://sqs.${signedFor ? signedFor[1] : region}.localhost:${fauxqsPort}/${url.substring(clientPrefix.length)}`;
  }

  /** The request body with its QueueUrl (JSON or form) in fauxqs's form; the body itself when it names none. */
  function toFauxqsRequest(req, body) {
    const text = body.toString("utf8");
    if (!text.includes("QueueUrl")) return body;
    try {
      if (req.headers["x-amz-target"]) {
        const request = JSON.parse(text);
        if (typeof request.QueueUrl !== "string") return body;
        request.QueueUrl = toFauxqsUrl(request.QueueUrl, req);
        return Buffer.from(JSON.stringify(request), "utf8");
      }
      const form = new URLSearchParams(text);
      if (!form.has("QueueUrl")) return body;
      form.set("QueueUrl", toFauxqsUrl(form.get("QueueUrl"), req));
      return Buffer.from(form.toString(), "utf8");
    } catch {
      return body;
    }
  }

  function forward(req, res, body) {
    return new Promise((resolve) => {
      const headers = { ...req.headers, host: `127.0.0.1:${fauxqsPort}`, "content-length": String(body.length) };
      delete headers["transfer-encoding"];
      const upstream = http.request({ host: "127.0.0.1", port: fauxqsPort, method: req.method, path: req.url, headers }, (response) => {
        const chunks = [];
        response.on("data", (c) => chunks.push(c));
        response.on("end", () => resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) }));
      });
      upstream.on("error", (e) => resolve({ status: 502, headers: { "content-type": "text/plain" }, body: Buffer.from(String(e)) }));
      upstream.end(body);
    });
  }

  const proxy = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    if (req.url.startsWith("/__control/")) return control(req, res, body);

    const skew = skewProblem(req);
    if (skew) {
      state.stats.skewed++;
      if (req.headers["x-amz-target"]) {
        return sendJson(res, 403, { __type: "com.amazon.coral.service#InvalidSignatureException", message: skew }, { "x-amzn-requestid": "skew", "x-amzn-query-error": "SignatureDoesNotMatch;Sender" });
      }
      res.writeHead(403, { "content-type": "text/xml", "x-amzn-requestid": "skew" });
      return res.end(`<ErrorResponse><Error><Type>Sender</Type><Code>SignatureDoesNotMatch</Code><Message>${skew}</Message></Error><RequestId>skew</RequestId></ErrorResponse>`);
    }

    const problem = verifySignatures ? await verifySignature(req, body) : null;
    if (problem) {
      state.stats.rejected++;
      return errorResponse(res, req, 403, "SignatureDoesNotMatch", `Missive test proxy: ${problem}`);
    }
    state.stats.verified++;
    state.requests.push({ method: req.method, path: req.url, headers: req.headers, body: body.toString("utf8") });
    if (state.requests.length > 500) state.requests.shift();

    const operation = operationOf(req.headers, body);
    const fault = takeFault(operation);
    if (fault) {
      switch (fault.kind) {
        case "status": return errorResponse(res, req, fault.status ?? 500, fault.code ?? "InternalError", "Injected server error");
        case "throttle": return errorResponse(res, req, 400, fault.code ?? (req.headers["x-amz-target"] ? "ThrottlingException" : "Throttling"), "Rate exceeded (injected)");
        case "drop": return req.socket.destroy();
        case "delay": await new Promise((r) => setTimeout(r, fault.delayMs ?? 1000)); break;
        case "dropResponse": break; // handled after forwarding
      }
    }

    if ((req.headers["x-amz-target"] ?? "").startsWith("AWSEvents.")) {
      const entries = JSON.parse(body.toString("utf8")).Entries ?? [];
      state.captured.push({ method: req.method, path: req.url, headers: req.headers, body: body.toString("utf8") });
      const response = state.eventBridgeResponse ?? { FailedEntryCount: 0, Entries: entries.map((_, i) => ({ EventId: `00000000-0000-0000-0000-${String(i).padStart(12, "0")}` })) };
      return sendJson(res, 200, response, { "x-amzn-requestid": "eventbridge-capture" });
    }

    const upstream = await forward(req, res, toFauxqsRequest(req, body));
    state.stats.forwarded++;
    toClientUrls(operation, upstream, req.headers.host);
    if (upstream.status === 200) {
      for (const sent of sentBodies(operation, body)) state.sent[sent] = (state.sent[sent] ?? 0) + 1;
    }
    if (operation === "ReceiveMessage" && upstream.status === 200) {
      for (const corrupt of state.faults.filter((f) => f.kind === "corruptBodyDigest")) corruptDigests(upstream, corrupt.bodyContains);
    }
    if (fault?.kind === "dropResponse") return req.socket.destroy(); // the request took effect; the caller never hears
    const headers = { ...upstream.headers };
    delete headers["transfer-encoding"];
    delete headers["connection"];
    res.writeHead(upstream.status, headers);
    res.end(upstream.body);
  });
  proxy.keepAliveTimeout = 1000;
  await listen(proxy, port);

  return {
    proxy: `http://127.0.0.1:${proxy.address().port}`,
    fauxqs: `http://127.0.0.1:${fauxqsPort}`,
    close: async () => { proxy.close(); await app.close(); },
  };
}

/** Listens on 127.0.0.1:port; a port already taken is an error that says what to do, not a stack trace. */
export async function listen(server, port) {
  server.listen(port, "127.0.0.1");
  try {
    await once(server, "listening");
  } catch (e) {
    if (e.code === "EADDRINUSE") {
      throw new Error(`port ${port} on 127.0.0.1 is already in use (another local endpoint, LocalStack, or an earlier run still going): stop that process, or choose another port with --port <n> and point the endpoint settings (ServiceUrl, AWS_ENDPOINT_URL) at it`);
    }
    throw e;
  }
}
