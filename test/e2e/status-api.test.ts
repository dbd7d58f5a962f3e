// The JSON API of the status page as the running exporter serves it (started
// through the composition root, watching a real kube-apiserver): filters,
// paging, a transition appearing in the object's ring, a deleted object
// disappearing, and `cr-status-exporter status --server` against it giving
// the same rows as the direct cluster mode.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import {
  changeSpec,
  condition,
  createCr,
  deleteCr,
  installCrd,
  patchStatus,
  refFor,
  useControlPlane,
} from "../cluster/index.ts";
import { runCli, table } from "../support/cli.ts";
import { type ExporterHandle, eventually, runExporter } from "../support/exporter.ts";

const testbed = useControlPlane();
let exporter: ExporterHandle;
let ns = "";
let other = "";
const uids = new Map<string, string>();
const configPath = join(mkdtempSync(join(tmpdir(), "cr-status-api-")), "config.yaml");

interface Item {
  uid: string;
  kind: string;
  namespace: string;
  name: string;
  result: string;
  notReady: boolean;
  lagging: boolean;
  ready: { reason: string; message: string } | null;
  links: { dashboard: string | null; trace: string | null; self: string };
}

interface Transition {
  what: string;
  type?: string;
  from?: string;
  to?: string;
  reason?: string;
  message?: string;
}

async function get<T>(path: string, status = 200): Promise<T> {
  const response = await fetch(`${exporter.exporter.url}${path}`);
  const body = (await response.json()) as T;
  assert.equal(response.status, status, `${path}: ${JSON.stringify(body)}`);
  return body;
}

async function names(query: string): Promise<string[]> {
  const page = await get<{ items: Item[] }>(`/api/v1/objects?${query}`);
  return page.items.map((i) => i.name);
}

const hoursAgo = (h: number): Date => new Date(Date.now() - h * 3_600_000);

before(async () => {
  const plane = await testbed.ready();
  const rest = plane.admin.rest;
  await installCrd(rest, "widgets");
  await installCrd(rest, "gadgets");
  ns = await plane.createNamespace("api");
  other = await plane.createNamespace("api-other");
  const widgets: [string, string, Record<string, string>, () => Promise<unknown>][] = [
    [ns, "alpha", { tier: "gold" }, async () => {}],
    [ns, "bravo", {}, async () => {}],
    [ns, "charlie", {}, () => changeSpec(rest, refFor("widgets", ns, "charlie"), { size: 2 })],
    [ns, "delta", { tier: "gold" }, async () => {}],
    [other, "echo", {}, async () => {}],
  ];
  const status: Record<string, [string, string, string, Date]> = {
    alpha: ["True", "Reconciled", "", hoursAgo(5)],
    bravo: ["False", "ImagePullBackOff", 'Back-off pulling image "shop/widget:v2"', hoursAgo(2)],
    charlie: ["True", "Reconciled", "", hoursAgo(5)],
    delta: ["False", "QuotaExceeded", "exceeded quota: compute-resources", hoursAgo(1)],
    echo: ["False", "Pending", "waiting", hoursAgo(3)],
  };
  for (const [namespace, name, labels, then] of widgets) {
    const ref = refFor("widgets", namespace, name);
    const created = await createCr(rest, ref, name, { size: 1 }, { labels });
    uids.set(name, created.metadata.uid);
    const [s, reason, message, since] = status[name] as [string, string, string, Date];
    await patchStatus(rest, ref, {
      observedGeneration: 1,
      conditions: [condition("Ready", s as "True" | "False", reason, message, 1, since)],
    });
    await then();
  }
  const gadget = await createCr(rest, refFor("gadgets", undefined, `${ns}-gadget`), `${ns}-gadget`);
  uids.set("gadget", gadget.metadata.uid);

  const config = {
    resources: [{ groups: ["example.com"], labels: [{ fromLabel: "tier", name: "tier" }] }],
    statusPage: {
      dashboardUrl: "https://grafana.example.com/d/obj?var-namespace={namespace}&var-name={name}",
      flappingTransitions: 2,
    },
  };
  writeFileSync(configPath, `resources:\n  - groups: ["example.com"]\n`);
  exporter = await runExporter(plane.kubeconfigPath, config);
  await eventually(
    "the exporter to sync and list every object",
    async () =>
      (await fetch(`${exporter.exporter.url}/readyz`)).ok &&
      (await names(`namespace=${ns},${other}&limit=500`)).length === 5,
    30_000,
  );
});

afterEach((t) => {
  if ("passed" in t && !t.passed && exporter)
    console.error(`# exporter log tail:\n${exporter.logs.slice(-30).join("\n")}`);
});

after(async () => {
  await exporter?.stop();
});

test("filters: not Ready longest first, reason, name, kind, labels, lagging, condition; bad ones are a 400", async () => {
  assert.deepEqual(await names(`namespace=${ns}&notReady=true`), ["bravo", "delta", "charlie"]);
  assert.deepEqual(await names(`namespace=${ns}&reason=QuotaExceeded`), ["delta"]);
  assert.deepEqual(await names(`namespace=${ns}&name=RAV`), ["bravo"]);
  assert.deepEqual(await names(`namespace=${ns}&labelSelector=tier=gold&sort=name`), ["alpha", "delta"]);
  assert.deepEqual(await names(`namespace=${ns}&lagging=true`), ["charlie"]);
  assert.deepEqual(await names(`namespace=${ns}&condition=Ready=False&sort=name`), ["bravo", "delta"]);
  assert.deepEqual(await names(`kind=Gadget&name=${ns}`), [`${ns}-gadget`]);
  assert.deepEqual(await names(`namespace=${other}`), ["echo"]);

  const page = await get<{ items: Item[] }>(`/api/v1/objects?namespace=${ns}&name=bravo`);
  const [bravo] = page.items;
  assert.equal(bravo?.result, "Failed", "Ready=False for longer than failedAfter (5m)");
  assert.deepEqual(bravo?.ready?.message, 'Back-off pulling image "shop/widget:v2"');
  assert.equal(
    bravo?.links.dashboard,
    `https://grafana.example.com/d/obj?var-namespace=${ns}&var-name=bravo`,
  );
  assert.equal(bravo?.links.trace, null, "tracing is off");

  const summary = await get<{ kinds: { kind: string; total: number; notReady: number; lagging: number }[] }>(
    `/api/v1/summary?namespace=${ns}`,
  );
  const widgets = summary.kinds.find((k) => k.kind === "Widget");
  assert.deepEqual(
    { total: widgets?.total, notReady: widgets?.notReady, lagging: widgets?.lagging },
    { total: 4, notReady: 3, lagging: 1 },
  );
  assert.ok(
    summary.kinds.some((k) => k.kind === "Gadget"),
    "every watched kind is listed, also with no match",
  );

  const bad = await get<{ error: { parameter: string; value: string } }>(
    `/api/v1/objects?namesapce=${ns}`,
    400,
  );
  assert.equal(bad.error.parameter, "namesapce");
});

test("paging: limit and continue walk every object once, in order", async () => {
  const all = await names(`namespace=${ns}&sort=name&limit=500`);
  assert.deepEqual(all, ["alpha", "bravo", "charlie", "delta"]);
  const seen: string[] = [];
  let token: string | null = null;
  let pages = 0;
  do {
    const query: string = `namespace=${ns}&sort=name&limit=3${token ? `&continue=${token}` : ""}`;
    const page: { items: Item[]; total: number; continue: string | null } = await get(
      `/api/v1/objects?${query}`,
    );
    assert.equal(page.total, 4);
    seen.push(...page.items.map((i) => i.name));
    token = page.continue;
    pages++;
  } while (token);
  assert.equal(pages, 2);
  assert.deepEqual(seen, all);
});

test("a condition flip and a spec change appear in the object's ring of transitions", async () => {
  const rest = testbed.plane.admin.rest;
  const ref = refFor("widgets", ns, "alpha");
  const uid = uids.get("alpha") as string;
  const before = await get<{ object: { recentTransitions: Transition[] } }>(`/api/v1/objects/${uid}`);
  assert.deepEqual(before.object.recentTransitions, [], "first sight is the state, not a change");

  await patchStatus(rest, ref, {
    conditions: [condition("Ready", "False", "Evicted", "node drained", 1)],
  });
  await changeSpec(rest, ref, { size: 3 });
  const ring = await eventually(
    "alpha's ring to show the flip and the new generation",
    async () => {
      const detail = await get<{ object: { recentTransitions: Transition[] } }>(`/api/v1/objects/${uid}`);
      const r = detail.object.recentTransitions;
      return r.length >= 2 ? r : undefined;
    },
    15_000,
  );
  assert.deepEqual(
    ring.map(({ what, type, from, to, reason, message }) => ({ what, type, from, to, reason, message })),
    [
      {
        what: "condition",
        type: "Ready",
        from: "True",
        to: "False",
        reason: "Evicted",
        message: "node drained",
      },
      {
        what: "generation",
        type: undefined,
        from: "1",
        to: "2",
        reason: undefined,
        message: undefined,
      },
    ],
  );
  assert.deepEqual(await names(`namespace=${ns}&lagging=true&sort=name`), ["alpha", "charlie"]);
});

test("a deleted object disappears from the list, the summary and its own URL", async () => {
  const uid = uids.get("echo") as string;
  await get(`/api/v1/objects/${uid}`);
  await deleteCr(testbed.plane.admin.rest, refFor("widgets", other, "echo"));
  const gone = await eventually(
    "echo to be gone",
    async () => {
      const response = await fetch(`${exporter.exporter.url}/api/v1/objects/${uid}`);
      return response.status === 404
        ? ((await response.json()) as { error: { message: string } })
        : undefined;
    },
    15_000,
  );
  assert.match(gone.error.message, /no object with uid/);
  assert.deepEqual(await names(`namespace=${other}`), []);
  const summary = await get<{ total: { total: number } }>(`/api/v1/summary?namespace=${other}`);
  assert.equal(summary.total.total, 0);
});

test("`status --server` against the running exporter: the rows of the direct cluster mode", async () => {
  const url = exporter.exporter.url;
  const fromServer = await runCli(["status", "--server", url, "-n", ns, "--sort", "name"]);
  assert.equal(fromServer.code, 0, fromServer.stderr);
  console.error(`# status --server ${url} -n ${ns} --sort name\n${fromServer.stdout}`);
  const direct = await runCli([
    "status",
    "--kubeconfig",
    testbed.plane.kubeconfigPath,
    "--config",
    configPath,
    "-n",
    ns,
    "--sort",
    "name",
  ]);
  assert.equal(direct.code, 0, direct.stderr);
  const pick = (text: string) =>
    [...table(text).values()].map((r) => [
      r.KIND,
      r.NAMESPACE,
      r.NAME,
      r.READY,
      r.REASON,
      r.LAG?.split(" ")[0],
    ]);
  assert.deepEqual(pick(fromServer.stdout), pick(direct.stdout));
  assert.deepEqual(
    [...table(fromServer.stdout).keys()],
    ["alpha", "bravo", "charlie", "delta"],
    fromServer.stdout,
  );

  const failing = await runCli(["status", "--server", url, "-n", ns, "--not-ready", "--fail-if-not-ready"]);
  assert.equal(failing.code, 1, failing.stderr);
  const json = await runCli(["status", "--server", url, "-n", ns, "-l", "tier=gold", "-o", "json"]);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual((JSON.parse(json.stdout) as { items: Item[] }).items.map((i) => i.name).sort(), [
    "alpha",
    "delta",
  ]);
  const unreachable = await runCli(["status", "--server", "http://127.0.0.1:1"]);
  assert.equal(unreachable.code, 2);
  assert.match(unreachable.stderr, /cannot reach http:\/\/127\.0\.0\.1:1\/api\/v1\/objects/);
});
