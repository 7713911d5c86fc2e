// An S3 endpoint for the payload-offload tests and for a developer's machine: s3rver (an S3 emulator written by others)
// on 127.0.0.1 and a free port, behind a proxy on 127.0.0.1 that recomputes every request's SigV4 signature for "s3"
// with @smithy/signature-v4 (the AWS SDK for JavaScript's signer; s3rver itself does not check V4 signatures) and
// refuses any mismatch with S3's 403 SignatureDoesNotMatch, then forwards as s3rver's own account. It injects faults:
//   POST /__control/faults  body: [{ "kind": "status"|"truncate"|"delay", "method": "GET", "count": n,
//                                     "status": 403, "code": "AccessDenied", "delayMs": 0 }]   (replaces the list)
//   GET  /__control/stats   { verified, rejected, faults }
// Usage: node tools/local-aws/s3.mjs [--port 4569] [--bucket name]... [--stay] ; prints "ready: http://127.0.0.1:P" and
// runs until its standard input closes (as the tests start it; --stay ignores the input, to run it in the background),
// Ctrl+C or SIGTERM.
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { execSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
if (!existsSync(join(here, "node_modules", "s3rver", "package.json"))) {
  execSync("npm ci --no-audit --no-fund", { cwd: here, stdio: "inherit" });
}

const require = createRequire(import.meta.url);
const S3rver = require("s3rver");
const { SignatureV4 } = await import("@smithy/signature-v4");
const { Sha256 } = await import("@aws-crypto/sha256-js");
const { credentials, listen } = await import("./server.mjs");

const args = process.argv.slice(2);
const portIndex = args.indexOf("--port");
const port = portIndex >= 0 ? Number(args[portIndex + 1]) : 4569;
const buckets = args.flatMap((a, i) => (a === "--bucket" ? [args[i + 1]] : []));
if (buckets.length === 0) buckets.push("missive-payloads");

const directory = mkdtempSync(path.join(os.tmpdir(), "missive-s3-"));
const s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, resetOnClose: true, vhostBuckets: false, configureBuckets: buckets.map((name) => ({ name })) });
const { port: s3Port } = await s3.run();

const state = { faults: [], stats: { verified: 0, rejected: 0, faults: 0 } };

async function verify(req, body) {
  const authorization = req.headers["authorization"] ?? "";
  const parsed = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!parsed) return `no SigV4 Authorization header for s3 (${authorization ? "malformed" : "missing"})`;
  const [, accessKeyId, , region, signedHeaders, signature] = parsed;
  if (accessKeyId !== credentials.accessKeyId) return `unknown access key ${accessKeyId}`;
  const amzDate = req.headers["x-amz-date"];
  const hash = req.headers["x-amz-content-sha256"];
  if (!amzDate || !hash) return "no x-amz-date or x-amz-content-sha256 header";
  const url = new URL(req.url, `http://${req.headers.host}`);
  const headers = {};
  for (const name of signedHeaders.split(";")) {
    if (req.headers[name] === undefined) return `signed header ${name} is missing`;
    headers[name] = req.headers[name];
  }
  // The query string is signed too (ListObjectsV2's list-type and prefix, a multipart upload's uploadId, ...); a key
  // given twice keeps every value, as the canonical request lists them.
  const query = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? [].concat(query[k], v) : v;
  const signer = new SignatureV4({ credentials: { ...credentials, sessionToken: req.headers["x-amz-security-token"] }, region, service: "s3", sha256: Sha256, uriEscapePath: false, applyChecksum: false });
  const date = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
  const signed = await signer.sign(
    { method: req.method, protocol: "http:", hostname: url.hostname, port: url.port ? Number(url.port) : undefined, path: url.pathname, query, headers, body },
    { signingDate: date, unsignableHeaders: new Set(), signableHeaders: new Set(Object.keys(headers)) });
  const expected = /Signature=([0-9a-f]{64})/.exec(signed.headers["authorization"])[1];
  if (expected !== signature) return `signature mismatch (expected ${expected}, got ${signature})`;
  const actual = (await import("node:crypto")).createHash("sha256").update(body).digest("hex");
  return hash === actual ? null : `x-amz-content-sha256 ${hash} is not the body's hash ${actual}`;
}

function s3Error(res, status, code, message) {
  res.writeHead(status, { "content-type": "application/xml", "x-amz-request-id": "missive-s3-proxy" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>missive-s3-proxy</RequestId></Error>`);
}

const proxy = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  if (req.url.startsWith("/__control/")) {
    if (req.url === "/__control/faults") { state.faults = JSON.parse(body.toString("utf8")); res.writeHead(204); return res.end(); }
    if (req.url === "/__control/stats") { res.writeHead(200, { "content-type": "application/json" }); return res.end(JSON.stringify(state.stats)); }
    res.writeHead(404); return res.end();
  }
  const problem = await verify(req, body);
  if (problem) { state.stats.rejected++; return s3Error(res, 403, "SignatureDoesNotMatch", `Missive S3 proxy: ${problem}`); }
  state.stats.verified++;
  const fault = state.faults.find((f) => (f.method ?? req.method) === req.method && (f.count ?? 1) > 0);
  if (fault) {
    fault.count = (fault.count ?? 1) - 1;
    state.stats.faults++;
    if (fault.kind === "status") return s3Error(res, fault.status ?? 500, fault.code ?? "InternalError", "Injected by the Missive S3 proxy");
    if (fault.kind === "delay") await new Promise((r) => setTimeout(r, fault.delayMs ?? 1000));
  }
  const headers = { ...req.headers, host: `127.0.0.1:${s3Port}`, authorization: req.headers["authorization"].replace(/Credential=[^/]+\//, "Credential=S3RVER/") };
  const upstream = http.request({ host: "127.0.0.1", port: s3Port, method: req.method, path: req.url, headers }, (response) => {
    const out = [];
    response.on("data", (c) => out.push(c));
    response.on("end", () => {
      const answer = Buffer.concat(out);
      const answerHeaders = { ...response.headers };
      delete answerHeaders["transfer-encoding"];
      delete answerHeaders["connection"];
      if (fault?.kind === "truncate" && answer.length > 1) {
        res.writeHead(response.statusCode, { ...answerHeaders, "content-length": String(answer.length) }); // the full length, then half the body
        res.flushHeaders();
        return res.write(answer.subarray(0, answer.length >> 1), () => setTimeout(() => res.socket.destroy(), 50));
      }
      res.writeHead(response.statusCode, answerHeaders);
      res.end(answer);
    });
  });
  upstream.on("error", (e) => s3Error(res, 502, "BadGateway", String(e)));
  upstream.end(body);
});
proxy.keepAliveTimeout = 1000;
try {
  await listen(proxy, port);
} catch (e) {
  console.error(`The local S3 endpoint did not start: ${e.message}`);
  await s3.close();
  process.exit(1);
}
const endpoint = `http://127.0.0.1:${proxy.address().port}`;
console.log(`Local S3 on ${endpoint}, with the bucket${buckets.length > 1 ? "s" : ""} ${buckets.join(", ")} (path-style addressing).`);
console.log(`Every request's SigV4 signature is checked: sign with AWS_ACCESS_KEY_ID=${credentials.accessKeyId} AWS_SECRET_ACCESS_KEY=${credentials.secretAccessKey}`);
console.log(`Point the payload store at it with AWS_ENDPOINT_URL_S3=${endpoint}, or the store's ServiceUrl; the AWS CLI with`);
console.log(`  aws --endpoint-url ${endpoint} s3 ls s3://${buckets[0]}`);
console.log(`ready: ${endpoint}`);

const stop = async () => { proxy.close(); await s3.close(); process.exit(0); };
if (!args.includes("--stay")) {
  // The tests start it with a pipe as its input and close the pipe to stop it; --stay ignores the input (in the background).
  process.stdin.resume();
  process.stdin.on("end", stop);
  process.stdin.on("error", stop);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
