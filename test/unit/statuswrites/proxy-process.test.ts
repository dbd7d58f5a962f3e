// The API proxy as a process of its own (proxy-process.ts), run here in the
// test's process: the supervisor's environment and command line are set, and
// process.exit and stderr are stood in for, so what it would exit with and
// log is read instead. It serves its counters on the socket it is given, and
// closes on a signal.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, type TestContext, test } from "node:test";
import { readProxyCounters } from "../../../src/statuswrites/process/counters-channel.ts";
import { runApiProxyProcess } from "../../../src/statuswrites/process/proxy-process.ts";
import { countersSocketPath, countersVariable, restartsVariable } from "../../../src/supervisor/roles.ts";
import { version } from "../../../src/version.ts";
import { startDiscoveryApiserver } from "../../support/discovery-apiserver.ts";
import { waitFor } from "../../support/fake-kube-api.ts";

const directory = mkdtempSync(join(tmpdir(), "cr-proxy-process-"));
after(() => rmSync(directory, { recursive: true, force: true }));

const kubeconfig = join(directory, "kubeconfig.yaml");
writeFileSync(
  kubeconfig,
  JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:9", "insecure-skip-tls-verify": true } }],
    users: [{ name: "u", user: { token: "t" } }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  }),
);

function configFile(name: string, config: Record<string, unknown>): string {
  const path = join(directory, name);
  writeFileSync(path, JSON.stringify(config));
  return path;
}

interface Run {
  exits: number[];
  logs: Record<string, unknown>[];
  /** Resolves once the process has exited (`what` names the wait in a timeout's message). */
  exited: (what: string) => Promise<void>;
}

/** Sets each variable, or removes it where the value is undefined. */
function setEnvironment(entries: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(entries)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

/**
 * Runs the proxy process with `env` and the command line `args`: process.exit
 * and stderr are mocked for the test, and the signal handlers it adds are
 * removed when the test ends.
 */
function run(t: TestContext, env: Record<string, string | undefined>, args: string[]): Run {
  const exits: number[] = [];
  const logs: Record<string, unknown>[] = [];
  t.mock.method(process, "exit", (code?: number) => {
    exits.push(code ?? 0);
  });
  const write = process.stderr.write.bind(process.stderr);
  t.mock.method(process.stderr, "write", (chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = String(chunk);
    if (text.startsWith('{"time"')) logs.push(JSON.parse(text));
    else (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    return true;
  });
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const argv = process.argv;
  const listeners = { SIGTERM: process.listeners("SIGTERM"), SIGINT: process.listeners("SIGINT") };
  t.after(() => {
    process.argv = argv;
    setEnvironment(saved);
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      for (const listener of process.listeners(signal)) {
        if (!listeners[signal].includes(listener)) process.off(signal, listener);
      }
    }
  });
  setEnvironment(env);
  process.argv = [process.execPath, "cr-status-exporter", ...args];
  runApiProxyProcess();
  for (const name of ["SIGTERM", "SIGINT"] as const) {
    handlers[name] = process.listeners(name).filter((l) => !listeners[name].includes(l));
  }
  const exited = (what: string) =>
    waitFor(
      () => exits.length > 0,
      what,
      () => logs,
    );
  return { exits, logs, exited };
}

/**
 * The signal handlers the last run added: a signal is given to these alone.
 * (A test runner may have its own, which would end the test's process.)
 */
const handlers: Record<"SIGTERM" | "SIGINT", NodeJS.SignalsListener[]> = { SIGTERM: [], SIGINT: [] };

/** Whether a connection to the port on loopback is refused (nothing listens). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

interface FakeTimer {
  ms: number | undefined;
  unref: boolean;
  fire: () => void;
}

/**
 * Gives `name` to the proxy process's handlers with setTimeout stood in for
 * while they run: the timers they arm are returned, never started (a forced
 * exit must not fire in the test's process later).
 */
function signal(name: "SIGTERM" | "SIGINT"): FakeTimer[] {
  const timers: FakeTimer[] = [];
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = ((fire: () => void, ms?: number) => {
    const timer = { ms, unref: false, fire };
    timers.push(timer);
    return {
      unref() {
        timer.unref = true;
        return this;
      },
    };
  }) as unknown as typeof setTimeout;
  try {
    for (const handler of handlers[name]) handler(name);
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  return timers;
}

const message = (logs: Record<string, unknown>[], msg: string) => logs.find((l) => l.msg === msg);

/** Until the proxy has logged that it listens. */
const untilListening = (logs: Record<string, unknown>[]): Promise<void> =>
  waitFor(
    () => message(logs, "api proxy listening") !== undefined,
    "the proxy listening",
    () => logs,
  );

test("it serves its counters on the supervisor's socket, naming its URL, CA and restarts; SIGTERM closes it with exit 0", async (t) => {
  const socketPath = countersSocketPath();
  const config = configFile("proxy.json", { apiProxy: { listen: "127.0.0.1:0" } });
  const { exits, logs, exited } = run(t, { [countersVariable]: socketPath, [restartsVariable]: "3" }, [
    "--config",
    config,
    "--kubeconfig",
    kubeconfig,
  ]);
  let snapshot: Awaited<ReturnType<typeof readProxyCounters>> | undefined;
  const deadline = performance.now() + 10_000;
  while (!snapshot) {
    snapshot = await readProxyCounters(socketPath, 1_000).catch(() => undefined);
    if (!snapshot) {
      assert.ok(performance.now() < deadline, `no counters; logs ${JSON.stringify(logs)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  assert.match(snapshot.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.match(snapshot.caPem ?? "", /^-----BEGIN CERTIFICATE-----/);
  assert.equal(snapshot.restarts, 3);
  assert.equal(snapshot.pid, process.pid);
  assert.match(snapshot.instance, /^[0-9a-f]{16}$/);
  assert.equal(snapshot.startTimeSeconds, Math.round(performance.timeOrigin) / 1000);
  assert.ok(
    snapshot.families.some((f) => f.name === "cr_status_update_requests_total"),
    "its status-write families, under the configured prefix",
  );
  const starting = message(logs, "starting");
  assert.equal(starting?.component, "api-proxy");
  assert.equal(starting?.restarts, 3);
  assert.equal(starting?.node, process.version);
  assert.equal(starting?.version, version);
  assert.match(String(starting?.hash), /^[0-9a-f]{8,}$/, "the configuration file's hash");
  assert.deepEqual(exits, [], "it keeps running");

  // The forced exit of a shutdown that hangs is armed (and unref'd) when the signal comes.
  const timers = signal("SIGTERM");
  assert.deepEqual(
    timers.map((x) => [x.ms, x.unref]),
    [[10_000, true]],
  );
  assert.equal(message(logs, "shutting down")?.signal, "SIGTERM");
  await exited("the exit after closing");
  assert.deepEqual(exits, [0]);
  await assert.rejects(readProxyCounters(socketPath, 1_000), "the counters socket is closed");
  assert.equal(await refused(Number(new URL(snapshot.url).port)), true, "the proxy is closed");

  assert.deepEqual(signal("SIGINT"), [], "a second signal arms nothing");
  assert.equal(logs.filter((l) => l.msg === "shutting down").length, 1, "a second signal changes nothing");

  timers[0]?.fire();
  assert.deepEqual(exits, [0, 1], "a shutdown past 10 s exits 1");
  assert.equal(message(logs, "shutdown took longer than 10 s; exiting")?.level, "error");
});

test("SIGINT closes it too", async (t) => {
  const socketPath = countersSocketPath();
  const config = configFile("proxy-int.json", { apiProxy: { listen: "127.0.0.1:0" } });
  const { exits, logs, exited } = run(t, { [countersVariable]: socketPath, [restartsVariable]: undefined }, [
    "--config",
    config,
    "--kubeconfig",
    kubeconfig,
  ]);
  await untilListening(logs);
  // The counters are served right after; read them once before the signal.
  const deadline = performance.now() + 10_000;
  while (!(await readProxyCounters(socketPath, 1_000).catch(() => undefined))) {
    assert.ok(performance.now() < deadline, "the counters");
  }
  assert.equal(message(logs, "starting")?.restarts, 0);
  signal("SIGINT");
  assert.equal(message(logs, "shutting down")?.signal, "SIGINT");
  await exited("the exit after closing");
  assert.deepEqual(exits, [0]);
});

test("without the supervisor's socket variable it cannot start: exit 1, saying why", async (t) => {
  const { exits, logs, exited } = run(t, { [countersVariable]: undefined }, ["--kubeconfig", kubeconfig]);
  await exited("the exit");
  assert.deepEqual(exits, [1]);
  const line = message(logs, "cannot start");
  assert.equal(line?.level, "error");
  assert.equal(
    line?.error,
    `${countersVariable} is not set: the API proxy process is started by the supervisor`,
  );
});

test("a configuration without apiProxy is invalid for it: exit 2 with the problem", async (t) => {
  const config = configFile("no-proxy.json", {});
  const { exits, logs, exited } = run(t, { [countersVariable]: countersSocketPath() }, [
    "--config",
    config,
    "--kubeconfig",
    kubeconfig,
  ]);
  await exited("the exit");
  assert.equal(exits[0], 2);
  const line = message(logs, "invalid configuration");
  assert.equal(line?.level, "error");
  assert.deepEqual(line?.problems, ["apiProxy: not configured, so there is no API proxy to run"]);
});

test("counters that cannot be served close the proxy and fail the start: exit 1, saying why", async (t) => {
  const config = configFile("proxy-bad-socket.json", { apiProxy: { listen: "127.0.0.1:0" } });
  const { exits, logs, exited } = run(
    t,
    { [countersVariable]: join(directory, "missing", "counters.sock") },
    ["--config", config, "--kubeconfig", kubeconfig],
  );
  await exited("the exit");
  assert.deepEqual(exits, [1]);
  const line = message(logs, "cannot start");
  assert.match(String(line?.error), /^cannot serve the status-write counters: Error: listen E/);
  const url = String(message(logs, "api proxy listening")?.url);
  assert.equal(await refused(Number(new URL(url).port)), true, "the proxy was closed");
});

test("its status writes are counted with the kinds its own client confirms, under the configured prefix", async (t) => {
  const apiserver = await startDiscoveryApiserver();
  t.after(() => apiserver.close());
  const ownKubeconfig = join(directory, "apiserver-kubeconfig.yaml");
  writeFileSync(
    ownKubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "c",
          cluster: {
            server: apiserver.url,
            "certificate-authority-data": Buffer.from(apiserver.caPem).toString("base64"),
          },
        },
      ],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    }),
  );
  const socketPath = countersSocketPath();
  const config = configFile("proxy-counted.json", {
    metricPrefix: "acme_",
    logLevel: "debug",
    apiProxy: { listen: "127.0.0.1:0", plainHttp: true },
  });
  const { exits, logs, exited } = run(t, { [countersVariable]: socketPath }, [
    "--config",
    config,
    "--kubeconfig",
    ownKubeconfig,
  ]);
  await untilListening(logs);
  const url = String(message(logs, "api proxy listening")?.url);
  const response = await fetch(`${url}/apis/example.com/v1/namespaces/ns1/widgets/w1/status`, {
    method: "PATCH",
    body: "{}",
  });
  assert.equal(response.status, 200);
  await response.arrayBuffer();
  const counted = (snapshot: Awaited<ReturnType<typeof readProxyCounters>> | undefined) =>
    snapshot?.families
      .find((f) => f.name === "acme_status_update_requests_total")
      ?.values.find((v) => v.labels.code === "200");
  let sample: ReturnType<typeof counted>;
  const deadline = performance.now() + 10_000;
  while (!sample) {
    sample = counted(await readProxyCounters(socketPath, 1_000).catch(() => undefined));
    if (!sample) {
      assert.ok(performance.now() < deadline, `not counted; logs ${JSON.stringify(logs)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  assert.deepEqual(sample.labels, {
    group: "example.com",
    kind: "Widget",
    namespace: "ns1",
    verb: "patch",
    code: "200",
    source: "proxy",
  });
  assert.ok(apiserver.requests.includes("GET /apis/example.com/v1"), JSON.stringify(apiserver.requests));
  // The configured log level: a failed write's debug line.
  const conflict = await fetch(`${url}/apis/example.com/v1/namespaces/ns1/widgets/conflict/status`, {
    method: "PATCH",
    body: "{}",
  });
  assert.equal(conflict.status, 409);
  await conflict.arrayBuffer();
  await waitFor(
    () => message(logs, "status write failed") !== undefined,
    "the failed write's debug line",
    () => logs,
  );
  assert.equal(message(logs, "status write failed")?.component, "api-proxy");
  signal("SIGTERM");
  await exited("the exit after closing");
  assert.deepEqual(exits, [0]);
});

test("a signal before the proxy has started exits 0 at once", async (t) => {
  // The start goes on and fails later (its counters socket cannot be served), closing what it started.
  const config = configFile("early-signal.json", { apiProxy: { listen: "127.0.0.1:0" } });
  const { exits, logs } = run(t, { [countersVariable]: join(directory, "missing", "early.sock") }, [
    "--config",
    config,
    "--kubeconfig",
    kubeconfig,
  ]);
  signal("SIGTERM");
  await waitFor(
    () => exits.length >= 2,
    "the exit, then the start's own end",
    () => logs,
  );
  assert.deepEqual(exits, [0, 1], "0 for the signal, then the start's failure");
});

test("when the supervisor is gone (its IPC channel closes) the proxy shuts down", async (t) => {
  let unrefed = false;
  Object.defineProperty(process, "channel", {
    value: {
      unref() {
        unrefed = true;
      },
    },
    configurable: true,
  });
  t.after(() => {
    delete (process as { channel?: unknown }).channel;
  });
  const config = configFile("supervised.json", { apiProxy: { listen: "127.0.0.1:0" } });
  const disconnectListeners = process.listenerCount("disconnect");
  const { exits, logs } = run(t, { [countersVariable]: join(directory, "missing", "supervised.sock") }, [
    "--config",
    config,
    "--kubeconfig",
    kubeconfig,
  ]);
  t.after(() => {
    for (const listener of process.listeners("disconnect").slice(disconnectListeners)) {
      process.off("disconnect", listener);
    }
  });
  assert.equal(unrefed, true, "the channel does not keep the process alive");
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = (() => ({ unref() {} })) as unknown as typeof setTimeout;
  try {
    process.emit("disconnect");
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  assert.equal(message(logs, "shutting down")?.signal, "supervisor gone");
  await waitFor(
    () => exits.length >= 2,
    "the exit, then the start's failure",
    () => logs,
  );
  assert.deepEqual(exits, [0, 1]);
});
