// Test harness for Missive.Aws, started by the .NET tests (never by hand in CI): the emulator of server.mjs with the
// signature check on, the proxy on a free port. When both listen, one JSON line goes to stdout:
// {"proxy":"http://127.0.0.1:P","fauxqs":"http://127.0.0.1:Q"}. The process ends when its standard input closes,
// so it never outlives the test run.
import { startEmulator } from "./server.mjs";

const emulator = await startEmulator();
process.stdout.write(JSON.stringify({ proxy: emulator.proxy, fauxqs: emulator.fauxqs }) + "\n");

process.stdin.resume();
process.stdin.on("end", async () => { await emulator.close(); process.exit(0); });
process.stdin.on("error", () => process.exit(0));
