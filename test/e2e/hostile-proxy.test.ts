// Hostile callers of the API proxy on a real apiserver, with the shipped
// timeouts: status PUTs far over the apiserver's 3 MiB body limit must come
// back as the apiserver's own 413 (never a 502 of the proxy's), be counted
// under TooLarge and add no series per attempt; a caller that trickles its
// headers or its body must be cut off at the headers (30 s) and request (60 s)
// timeouts. The same with short timeouts and a stand-in upstream is in
// test/unit/statuswrites/api-proxy-hostile.test.ts.
import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, test } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { Registry } from "@prometheus-io/client";
import { silentLogger } from "../../src/log.ts";
import {
  type ApiProxy,
  createDiscoveryKindResolver,
  createStatusWriteMetrics,
  startApiProxy,
} from "../../src/statuswrites/index.ts";
import { proxyTimeouts } from "../../src/statuswrites/proxy/proxy-server.ts";
import { createCr, installCrd, RestClient, refFor, useControlPlane, waitUntil } from "../cluster/index.ts";
import { closedAfter, sendBody } from "../helpers/hostile-http.ts";

const testbed = useControlPlane();
const registry = new Registry();
let proxy: ApiProxy | undefined;
let ns = "";

before(async () => {
  const plane = await testbed.ready();
  await installCrd(plane.admin.rest, "widgets");
  ns = await plane.createNamespace("hostile-proxy");
  await createCr(plane.admin.rest, refFor("widgets", ns, "w1"), "w1");
  const discovery = new RestClient(plane.server, plane.caPem, plane.mintUser().token);
  proxy = await startApiProxy(
    {
      listen: "127.0.0.1:0",
      upstream: { server: plane.server, caPem: plane.caPem },
      kinds: createDiscoveryKindResolver({
        fetchResourceList: (group, version) =>
          discovery.get(group === "" ? `/api/${version}` : `/apis/${group}/${version}`),
      }),
    },
    createStatusWriteMetrics(registry),
    silentLogger,
  );
});

after(async () => {
  await proxy?.close();
});

function running(): ApiProxy {
  if (!proxy) throw new Error("proxy not started");
  return proxy;
}

/** PUTs `bytes` of body to w1's status as fast as it is taken; the answer's code and Status reason. */
function bigStatusPut(bytes: number): Promise<string> {
  const { url, caPem } = running();
  return new Promise((resolve) => {
    const req = request(
      `${url}/apis/example.com/v1/namespaces/${ns}/widgets/w1/status`,
      {
        method: "PUT",
        agent: false,
        ca: caPem,
        headers: {
          Authorization: `Bearer ${testbed.plane.admin.token}`,
          "Content-Type": "application/json",
          "Content-Length": bytes,
        },
      },
      (res) => {
        let body = "";
        res.on("data", (data: Buffer) => {
          body += data.toString();
        });
        res.on("end", () => {
          let reason: unknown;
          try {
            reason = JSON.parse(body).reason;
          } catch {
            reason = `unparsable body ${JSON.stringify(body.slice(0, 120))}`;
          }
          resolve(`${res.statusCode} ${reason}`);
        });
        res.on("error", (error) => resolve(`response error ${error.message}`));
        res.on("close", () => resolve("response cut"));
      },
    );
    req.on("error", (error) => resolve(`request error ${error.message}`));
    req.on("close", () => resolve("no answer"));
    sendBody(req, bytes, 1024 * 1024);
  });
}

async function statusWriteSeries(): Promise<string[]> {
  return (await registry.metrics()).split("\n").filter((line) => line.startsWith("cr_status_update_"));
}

/** Waits until `line` is exposed; the error shows the status-write series seen last. */
async function waitForSeries(line: string): Promise<void> {
  await waitUntil(line, 10_000, async () => {
    const series = await statusWriteSeries();
    if (!series.includes(line)) throw new Error(`series seen:\n${series.join("\n")}`);
    return true;
  });
}

/** A status write within the limit through the proxy: the apiserver's success confirms the namespace label. */
function smallStatusPatch(): Promise<number> {
  const { url, caPem } = running();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/apis/example.com/v1/namespaces/${ns}/widgets/w1/status`,
      {
        method: "PATCH",
        ca: caPem,
        agent: false,
        headers: {
          Authorization: `Bearer ${testbed.plane.admin.token}`,
          "Content-Type": "application/merge-patch+json",
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ status: { phase: "Running" } }));
  });
}

test("status PUTs over the apiserver's body limit: its 413 passes through, counted as TooLarge, no new series", async () => {
  assert.equal(await smallStatusPatch(), 200);
  assert.equal(await bigStatusPut(16 * 1024 * 1024), "413 RequestEntityTooLarge");
  const tooLarge = `cr_status_update_failures_total{group="example.com",kind="Widget",namespace="${ns}",reason="TooLarge",source="proxy"}`;
  await waitForSeries(`${tooLarge} 1`);
  const seriesAfterOne = (await statusWriteSeries()).length;
  const outcomes: string[] = [];
  for (let i = 0; i < 8; i++) outcomes.push(await bigStatusPut(100 * 1024 * 1024));
  assert.deepEqual(outcomes, Array(8).fill("413 RequestEntityTooLarge"));
  await waitForSeries(`${tooLarge} 9`);
  const series = await statusWriteSeries();
  assert.equal(series.length, seriesAfterOne, series.join("\n"));
  assert.ok(!series.some((line) => line.includes('reason="ServerError"')), series.join("\n"));
});

/** A status PATCH through the proxy with no credentials at all; its code. */
function anonymousStatusPatch(path: string): Promise<number> {
  const { url, caPem } = running();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: "PATCH", ca: caPem, headers: { "Content-Type": "application/merge-patch+json" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end('{"status":{}}');
  });
}

test("300 anonymous status PATCHes to made-up namespaces and resources add a bounded number of series", async () => {
  const before = await statusWriteSeries();
  const codes = new Map<number, number>();
  for (let i = 0; i < 300; i++) {
    const path =
      i % 2 === 0
        ? `/apis/example.com/v1/namespaces/made-up-${i}/widgets/w/status`
        : `/apis/made-up-${i}.example/v1/namespaces/made-up-${i}/things${i}/w/status`;
    const code = await anonymousStatusPatch(path);
    codes.set(code, (codes.get(code) ?? 0) + 1);
  }
  // system:anonymous may not write anything: 403 (401 where anonymous requests are turned off).
  assert.ok(
    [...codes.keys()].every((code) => code === 401 || code === 403),
    JSON.stringify([...codes]),
  );
  const folded = 'cr_status_update_labels_folded_total{source="proxy",label="namespace",cause="unconfirmed"}';
  await waitUntil("every anonymous write counted", 10_000, async () => {
    const series = await statusWriteSeries();
    const line = series.find((l) => l.startsWith(`${folded} `));
    if (!line || Number(line.split(" ").at(-1)) < 300) throw new Error(`series seen:\n${series.join("\n")}`);
    return true;
  });
  const after = await statusWriteSeries();
  const added = after.filter((line) => !before.some((b) => b.split(" ")[0] === line.split(" ")[0]));
  console.error(
    `# status-write series lines: ${before.length} before, ${after.length} after 300 anonymous writes`,
  );
  // One folded target (other/other/other and example.com/Widget/other), each with its
  // requests, failures and histogram lines, plus the fold counters: a few dozen at most, not 300 per family.
  assert.ok(added.length <= 40, `added ${added.length} series lines:\n${added.join("\n")}`);
  assert.ok(!after.some((line) => line.includes("made-up")), after.join("\n"));
});

/** A TLS connection to the proxy that sends `head`, then one byte every 200 ms until it is closed. */
async function trickle(head: string, byte: string): Promise<number> {
  const { port, caPem } = running();
  const socket = tlsConnect({ host: "127.0.0.1", port, ca: caPem, servername: "localhost" });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("secureConnect", () => resolve());
      socket.once("error", reject);
    });
    const started = performance.now();
    socket.write(head);
    const drip = setInterval(() => socket.writable && socket.write(byte), 200);
    const deadlineMs = proxyTimeouts.requestMs + 30_000;
    return await closedAfter(socket, started, deadlineMs).finally(() => clearInterval(drip));
  } finally {
    socket.destroy();
  }
}

test("callers trickling headers or a body are cut off at the shipped headers and request timeouts", async () => {
  const { headersMs, requestMs, checkIntervalMs } = proxyTimeouts;
  const [headersCut, bodyCut] = await Promise.all([
    trickle("GET /api HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", "a"),
    trickle(
      `PUT /apis/example.com/v1/namespaces/${ns}/widgets/w1/status HTTP/1.1\r\nHost: localhost\r\n` +
        `Authorization: Bearer ${testbed.plane.admin.token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
      " ",
    ),
  ]);
  console.error(
    `# trickled headers cut after ${headersCut.toFixed(0)} ms, trickled body after ${bodyCut.toFixed(0)} ms`,
  );
  // The check runs every checkIntervalMs; a loaded machine gets a few seconds more.
  const slackMs = checkIntervalMs + 5_000;
  assert.ok(headersCut >= headersMs - 100 && headersCut < headersMs + slackMs, `headers: ${headersCut} ms`);
  assert.ok(bodyCut >= requestMs - 100 && bodyCut < requestMs + slackMs, `body: ${bodyCut} ms`);
});
