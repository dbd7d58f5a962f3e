// Which command lines run under the supervisor, and how the supervisor tells a
// child what it is: the roles, restart counts and names in the environment a
// child is started with, and a child's end when the supervisor is gone.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { supervisedLogLevel } from "../../src/supervisor/decide.ts";
import {
  childRole,
  countersSocketPath,
  countersVariable,
  exitWithSupervisor,
  logLevelVariable,
  restartsOf,
  restartsVariable,
  roleOf,
  roleVariable,
} from "../../src/supervisor/roles.ts";

test("the exporter runs under the supervisor when apiProxy is configured, with the configured log level", () => {
  const proxied = ["--api-proxy-listen", "127.0.0.1:8001"];
  assert.equal(supervisedLogLevel([...proxied, "--log-level", "debug"]), "debug");
  assert.equal(supervisedLogLevel(proxied), "info", "the default level");
  assert.equal(supervisedLogLevel(["--log-level", "debug"]), undefined, "no apiProxy: one process");
});

test("--help, --version, --check-config, a subcommand or flags that do not parse run as one process", () => {
  const proxied = ["--api-proxy-listen", "127.0.0.1:8001", "--log-level", "debug"];
  for (const argv of [
    [...proxied, "--help"],
    [...proxied, "--version"],
    [...proxied, "--check-config", join(tmpdir(), "config.yaml")],
    [...proxied, "--no-such-flag"],
    ["status", ...proxied],
  ]) {
    assert.equal(supervisedLogLevel(argv), undefined, argv.join(" "));
  }
});

test("roles: the supervisor and its two children; anything else (or nothing) is a single process", () => {
  for (const role of ["supervisor", "api-proxy", "exporter"] as const) {
    assert.equal(roleOf({ [roleVariable]: role }), role);
  }
  assert.equal(roleOf({ [roleVariable]: "collector" }), undefined);
  assert.equal(roleOf({}), undefined);
  assert.equal(childRole({ [roleVariable]: "supervisor" }), undefined);
  assert.equal(childRole({ [roleVariable]: "exporter" }), "exporter");
  assert.equal(childRole({ [roleVariable]: "api-proxy" }), "api-proxy");
});

test("restart counts: the whole number given, 0 when unset or not a whole number of at least 0", () => {
  assert.equal(restartsOf({ [restartsVariable]: "7" }), 7);
  assert.equal(restartsOf({ [restartsVariable]: "0" }), 0);
  assert.equal(restartsOf({}), 0);
  for (const bad of ["-1", "1.5", "seven", "1e400"])
    assert.equal(restartsOf({ [restartsVariable]: bad }), 0, bad);
});

test("each variable the supervisor sets reaches a child process under its name", () => {
  const names = [roleVariable, countersVariable, logLevelVariable, restartsVariable];
  const env = Object.fromEntries(names.map((name, i) => [name, `value-${i}`]));
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(JSON.stringify(process.env))"], {
    env: { ...env, PATH: process.env.PATH },
    encoding: "utf8",
  });
  assert.equal(child.status, 0, child.stderr);
  const seen = JSON.parse(child.stdout);
  assert.deepEqual(
    names.map((name) => seen[name]),
    ["value-0", "value-1", "value-2", "value-3"],
  );
});

test("the counters socket: an abstract socket on Linux, a file in the temporary directory elsewhere; unique per call", () => {
  const linux = countersSocketPath("linux");
  assert.match(linux, new RegExp(`^@cr-status-exporter-${process.pid}-[0-9a-f]{16}/api-proxy-counters$`));
  assert.notEqual(countersSocketPath("linux"), linux);
  const darwin = countersSocketPath("darwin");
  assert.ok(darwin.startsWith(join(tmpdir(), `cr-status-exporter-${process.pid}-`)), darwin);
  assert.match(darwin, /-[0-9a-f]{16}\.sock$/);
});

/** A node child with an IPC channel that runs `body` after importing exitWithSupervisor. */
function childWithChannel(t: { after(fn: () => void): void }, body: string) {
  const roles = join(import.meta.dirname, "../../src/supervisor/roles.ts");
  const script = `import { exitWithSupervisor } from ${JSON.stringify(roles)};\n${body}`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  const stdout = child.stdout;
  assert.ok(stdout, "stdout is a pipe");
  let out = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = once(child, "exit").then(([code]) => ({ code, out }));
  return { child, stdout, exited };
}

test("a child's channel to the supervisor does not keep it running", { timeout: 20_000 }, async (t) => {
  const { exited } = childWithChannel(t, 'exitWithSupervisor(() => process.stdout.write("stopped"));');
  assert.deepEqual(await exited, { code: 0, out: "" }, "it ended on its own, not stopped");
});

test("a child stops when the supervisor is gone (its channel closes)", { timeout: 20_000 }, async (t) => {
  const { child, stdout, exited } = childWithChannel(
    t,
    `const keep = setInterval(() => {}, 60_000);
exitWithSupervisor(() => { clearInterval(keep); process.stdout.write("stopped"); });
process.stdout.write("ready");`,
  );
  await once(stdout, "data");
  child.disconnect();
  assert.deepEqual(await exited, { code: 0, out: "readystopped" });
});

test("exitWithSupervisor lets go of the channel and stops on its disconnect; a process without a channel is left alone", () => {
  const calls: string[] = [];
  const stop = (): void => {};
  const child = {
    channel: { unref: () => calls.push("unref") },
    once: (event: string, listener: () => void) => {
      calls.push(`once ${event} ${listener === stop}`);
      return child;
    },
  };
  exitWithSupervisor(stop, child as unknown as Pick<NodeJS.Process, "channel" | "once">);
  assert.deepEqual(calls, ["unref", "once disconnect true"]);
  const alone = { ...child, channel: undefined };
  exitWithSupervisor(stop, alone as unknown as Pick<NodeJS.Process, "channel" | "once">);
  assert.equal(calls.length, 2);
});
