// The collector manager on a scripted API: CRDs listed and watched decide
// which collectors run (started on discovery, stopped when their CRD goes,
// swept when a relist no longer returns it); a reload re-judges, re-renders,
// reconfigures or drops running collectors; the watch-total limit, a
// forbidden CRD list and every collector's state add up to one readiness;
// detection starts afresh for a re-installed CRD or a changed schema; a
// failed reshard or a broken CRD line stops nothing.
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { CollectorManager } from "../../src/collectors/manager.ts";
import type { CollectorDeps, ResourceCollector } from "../../src/collectors/resource-collector.ts";
import type { Config } from "../../src/config/schema.ts";
import { validateConfig } from "../../src/config/validate.ts";
import {
  defaultSelection,
  type FamilySelection,
  selectableFamilies,
} from "../../src/core/series/family-selection.ts";
import type { KubeClient, StreamOptions } from "../../src/kube/client.ts";
import { createLogger, type LogFields } from "../../src/log.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import type { StateTracer } from "../../src/tracing/state-tracer.ts";
import { eventually } from "../support/exporter.ts";
import { untilAborted, waitFor, watchLine } from "../support/fake-kube-api.ts";
import { cond } from "../support/objects.ts";
import { corpusGroup, loadCorpusCrd } from "../support/shapes-corpus.ts";

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const established = { conditions: [{ type: "Established", status: "True" }] };
const statusSchema = {
  openAPIV3Schema: {
    type: "object",
    properties: {
      status: {
        type: "object",
        properties: {
          observedGeneration: { type: "integer" },
          conditions: {
            type: "array",
            items: {
              type: "object",
              properties: { type: { type: "string", enum: ["Ready"] }, status: { type: "string" } },
            },
          },
        },
      },
    },
  },
};

/** An established, namespaced CRD with one served version whose status declares Ready. */
function crd(
  plural: string,
  group = "example.com",
  kind = `${plural[0]?.toUpperCase()}${plural.slice(1, -1)}`,
) {
  return {
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, kind },
      versions: [
        { name: "v1", served: true, storage: true, subresources: { status: {} }, schema: statusSchema },
      ],
    },
    status: established,
  };
}

/**
 * A cluster API: CRDs and objects served from maps (read at every list), every
 * watch opened and held; the CRD watches are kept so a test can send events.
 */
function fakeCluster() {
  const crds = new Map<string, unknown>();
  const objects = new Map<string, unknown[]>();
  const crdWatches: StreamOptions[] = [];
  const calls: { kind: "list" | "watch"; path: string }[] = [];
  const state = { forbidden: false };
  const client: KubeClient = {
    server: "https://fake.invalid",
    async request(_method, path) {
      calls.push({ kind: "list", path });
      if (path === crdPath) {
        if (state.forbidden) {
          return {
            status: 403,
            body: { kind: "Status", code: 403, message: "customresourcedefinitions is forbidden" } as never,
          };
        }
        return {
          status: 200,
          body: { items: [...crds.values()], metadata: { resourceVersion: "5" } } as never,
        };
      }
      return {
        status: 200,
        body: { items: objects.get(path) ?? [], metadata: { resourceVersion: "10" } } as never,
      };
    },
    async stream(path, options) {
      calls.push({ kind: "watch", path });
      options.onOpen?.();
      if (path === crdPath) crdWatches.push(options);
      await untilAborted(options.signal);
    },
  };
  const crdEvent = (type: string, raw: unknown): void => {
    const watch = crdWatches.at(-1);
    assert.ok(watch, "a CRD watch is open");
    watch.onLine(watchLine(type, raw));
  };
  return { client, crds, objects, crdWatches, calls, state, crdEvent };
}

type Cluster = ReturnType<typeof fakeCluster>;

/** From now on the CRD list is answered only once the returned function is called (or the loop stops). */
function holdCrdLists(t: TestContext, cluster: Cluster): () => void {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const request = cluster.client.request.bind(cluster.client);
  cluster.client.request = async (method, path, options) => {
    if (path === crdPath && options?.signal) await Promise.race([gate, untilAborted(options.signal)]);
    return request(method, path, options);
  };
  t.after(release);
  return release;
}

function startManager(t: TestContext, cluster: Cluster, deps: Partial<CollectorDeps> = {}) {
  const lines: { level: string; msg: string; fields: LogFields }[] = [];
  const logger = createLogger({
    level: "debug",
    write: (line: string) => {
      const { level, msg, ...fields } = JSON.parse(line) as { level: string; msg: string } & LogFields;
      lines.push({ level, msg, fields });
    },
  });
  const manager = new CollectorManager({
    client: cluster.client,
    metrics: createSelfMetrics("cr_", "0.0.0-test"),
    logger,
    tracer: undefined,
    clock: () => Date.now() / 1000,
    owns: () => true,
    ...deps,
  });
  t.after(() => manager.stop());
  const logged = (msg: string) => lines.filter((l) => l.msg === msg);
  return { manager, lines, logged };
}

const config = (raw: Record<string, unknown>): Config => validateConfig(raw);
const examples = (options: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  config({ resources: [{ groups: ["example.com"], ...options }], ...extra });
const keys = (manager: CollectorManager) =>
  manager
    .collectors()
    .map((c) => `${c.identity.group}/${c.identity.resource}`)
    .sort();
const byResource = (manager: CollectorManager, resource: string): ResourceCollector | undefined =>
  manager.collectors().find((c) => c.identity.resource === resource);

test("discovery: the listed CRDs a selector matches get a collector; CRD events start and stop them; a relist sweeps the ones gone", async (t) => {
  const cluster = fakeCluster();
  cluster.crds.set("widgets.example.com", crd("widgets"));
  cluster.crds.set("gadgets.example.com", crd("gadgets"));
  cluster.crds.set("others.other.io", crd("others", "other.io"));
  const { manager, logged } = startManager(t, cluster);
  await manager.applyConfig(examples());
  await waitFor(
    () => keys(manager).length === 2,
    "collectors for the two example.com CRDs",
    () => keys(manager),
  );
  assert.deepEqual(keys(manager), ["example.com/gadgets", "example.com/widgets"]);
  assert.equal(cluster.calls.filter((c) => c.path === crdPath && c.kind === "list").length, 1);
  await waitFor(
    () => cluster.calls.some((c) => c.kind === "list" && c.path === "/apis/example.com/v1/widgets"),
    "the widgets collector lists its objects",
    () => cluster.calls,
  );

  // A CRD installed later is followed.
  const sprocket = crd("sprockets");
  cluster.crdEvent("ADDED", sprocket);
  await waitFor(
    () => keys(manager).includes("example.com/sprockets"),
    "a collector for the added CRD",
    () => keys(manager),
  );

  // A deleted CRD stops its collector, and only its.
  const gadgets = byResource(manager, "gadgets");
  cluster.crdEvent("DELETED", crd("gadgets"));
  await waitFor(
    () => !keys(manager).includes("example.com/gadgets"),
    "the deleted CRD's collector stopped",
    () => keys(manager),
  );
  assert.deepEqual(keys(manager), ["example.com/sprockets", "example.com/widgets"]);
  assert.equal(gadgets?.status().synced, false, "the removed collector's loops are stopped");
  assert.deepEqual(
    logged("resource no longer watched").map((l) => l.fields.resource),
    ["example.com/gadgets"],
  );

  // The CRD watch ends with 410 Gone; the relist no longer returns widgets (its DELETED was missed).
  cluster.crds.delete("widgets.example.com");
  cluster.crds.delete("gadgets.example.com");
  cluster.crds.set("sprockets.example.com", sprocket);
  cluster.crdEvent("ERROR", { kind: "Status", code: 410, message: "too old resource version" });
  await waitFor(
    () => !keys(manager).includes("example.com/widgets"),
    "the collector of the CRD the relist no longer returns stopped",
    () => keys(manager),
  );
  assert.deepEqual(keys(manager), ["example.com/sprockets"]);
});

test("nothing starts before the CRDs are listed, and readiness says the CRD list is pending", async (t) => {
  const cluster = fakeCluster();
  cluster.crds.set("widgets.example.com", crd("widgets"));
  const release = holdCrdLists(t, cluster);
  const { manager } = startManager(t, cluster);
  await manager.applyConfig(examples());
  assert.deepEqual(keys(manager), [], "no collector while the CRD list is outstanding");
  const pending = manager.readiness();
  assert.deepEqual(pending.crds, { synced: false, error: undefined });
  assert.equal(pending.ready, false);
  release();
  await waitFor(
    () => manager.readiness().ready,
    "ready once the CRDs are listed and the collector synced",
    () => manager.readiness(),
  );
  assert.deepEqual(keys(manager), ["example.com/widgets"]);
  assert.deepEqual(manager.readiness().crds, { synced: true, error: undefined });
});

test("a forbidden CRD list is a readiness error, not 'missing'; once listed, an explicit entry without CRD is missing", async (t) => {
  const cluster = fakeCluster();
  cluster.state.forbidden = true;
  const { manager, logged } = startManager(t, cluster);
  await manager.applyConfig(config({ resources: [{ group: "example.com", resource: "widgets" }] }));
  await waitFor(
    () => manager.readiness().crds?.error !== undefined,
    "the CRD list error",
    () => manager.readiness(),
  );
  const denied = manager.readiness();
  assert.match(denied.crds?.error ?? "", /^list customresourcedefinitions failed \(HTTP 403\): /);
  assert.equal(denied.crds?.synced, false);
  assert.deepEqual(denied.missing, [], "a forbidden list must not read as 'not installed'");
  assert.equal(denied.ready, false);
  assert.equal(logged("cannot watch CRDs")[0]?.fields.error, denied.crds?.error);
  assert.equal(logged("cannot watch CRDs")[0]?.level, "warn");

  cluster.state.forbidden = false;
  await waitFor(
    () => manager.readiness().crds?.synced === true,
    "the CRD list after the retry",
    () => manager.readiness(),
  );
  const listed = manager.readiness();
  assert.equal(listed.crds?.error, undefined, "the error clears once listed");
  assert.equal(listed.missing.length, 1);
  assert.match(listed.missing[0] ?? "", /widgets/);
  assert.equal(listed.ready, true, "a missing explicit CRD is not a readiness failure");
});

test("a configured resource whose CRD is not installed is logged once, and once more when it appears", async (t) => {
  const cluster = fakeCluster();
  cluster.crds.set("others.other.io", crd("others", "other.io"));
  const { manager, logged } = startManager(t, cluster);
  await manager.applyConfig(config({ resources: [{ group: "example.com", resource: "widgets" }] }));
  await waitFor(
    () => manager.readiness().missing.length === 1,
    "widgets missing",
    () => manager.readiness(),
  );
  const missingLog = "configured resource's CRD is not installed; watched once it is";
  assert.deepEqual(
    logged(missingLog).map((l) => [l.level, l.fields.resource]),
    [["warn", "widgets.example.com"]],
  );
  // Other CRD events and a reload do not repeat it.
  cluster.crdEvent("ADDED", crd("gadgets", "other.io"));
  await manager.applyConfig(config({ resources: [{ group: "example.com", resource: "widgets" }] }));
  assert.equal(logged(missingLog).length, 1);
  cluster.crds.set("widgets.example.com", crd("widgets"));
  cluster.crdEvent("ADDED", crd("widgets"));
  await waitFor(
    () => keys(manager).includes("example.com/widgets"),
    "widgets watched",
    () => keys(manager),
  );
  assert.deepEqual(
    logged("configured resource's CRD is installed").map((l) => [l.level, l.fields.resource]),
    [["info", "widgets.example.com"]],
  );
  assert.equal(logged(missingLog).length, 1);
});

test("readiness: ready only when every collector is; each resource is reported with its detail", async (t) => {
  const cluster = fakeCluster();
  cluster.crds.set("widgets.example.com", crd("widgets"));
  cluster.crds.set("gadgets.example.com", crd("gadgets"));
  // The gadgets list fails: that collector never syncs.
  const request = cluster.client.request.bind(cluster.client);
  cluster.client.request = async (method, path, options) => {
    if (path === "/apis/example.com/v1/gadgets") return { status: 500, body: { message: "boom" } as never };
    return request(method, path, options);
  };
  const { manager } = startManager(t, cluster);
  await manager.applyConfig(examples());
  await waitFor(
    () => manager.readiness().resources.some((r) => r.ready),
    "the widgets collector ready",
    () => manager.readiness(),
  );
  const readiness = manager.readiness();
  assert.deepEqual(readiness.resources.map((r) => [r.resource, r.ready]).sort(), [
    ["gadgets.example.com/v1", false],
    ["widgets.example.com/v1", true],
  ]);
  assert.equal(readiness.ready, false, "one collector not ready: not ready");
  assert.equal(readiness.crds?.synced, true);
  assert.equal(readiness.overLimit, undefined);
});

test("a reload re-judges, re-renders, reconfigures or drops each running collector as the change requires", async (t) => {
  const cluster = fakeCluster();
  cluster.crds.set("widgets.example.com", crd("widgets"));
  cluster.crds.set("gadgets.example.com", crd("gadgets"));
  const { manager, logged } = startManager(t, cluster);
  const entries = (widgets: Record<string, unknown>, gadgets: Record<string, unknown> = {}) => [
    { group: "example.com", resource: "widgets", ...widgets },
    { group: "example.com", resource: "gadgets", ...gadgets },
  ];
  await manager.applyConfig(config({ resources: entries({}) }));
  await waitFor(
    () => keys(manager).length === 2,
    "both collectors",
    () => keys(manager),
  );
  const widgets = byResource(manager, "widgets");
  const gadgets = byResource(manager, "gadgets");
  assert.ok(widgets && gadgets);
  assert.equal(widgets.settings.kind.readiness.readyCondition, "Ready");

  // Readiness rules only: the same collector judges again.
  await manager.applyConfig(config({ resources: entries({ readyCondition: "Available" }) }));
  assert.equal(byResource(manager, "widgets"), widgets, "the same collector (no relist)");
  assert.equal(widgets.settings.kind.readiness.readyCondition, "Available");
  assert.deepEqual(
    logged("resource judged again").map((l) => l.fields.resource),
    ["example.com/widgets"],
  );
  assert.deepEqual(logged("resource re-rendered for a new metric selection"), []);

  // A family selection only: the same collector renders again.
  const selection = widgets.settings.selection;
  await manager.applyConfig(
    config({
      resources: entries({ readyCondition: "Available", metrics: { deny: ["cr_condition_reason"] } }),
    }),
  );
  assert.equal(byResource(manager, "widgets"), widgets);
  assert.notDeepEqual(widgets.settings.selection, selection, "the new selection is applied");
  assert.deepEqual(
    logged("resource re-rendered for a new metric selection").map((l) => l.fields.resource),
    ["example.com/widgets"],
  );
  assert.equal(logged("resource judged again").length, 1, "nothing to judge again");

  // A new prefix: logged, and every collector renders with it.
  await manager.applyConfig(
    config({
      metricPrefix: "kube_cr_",
      resources: entries({ readyCondition: "Available", metrics: { deny: ["kube_cr_condition_reason"] } }),
    }),
  );
  assert.equal(logged("metric prefix changed").length, 1);
  assert.equal(widgets.settings.prefix, "kube_cr_");
  assert.equal(gadgets.settings.prefix, "kube_cr_");
  assert.equal(logged("resource re-rendered for a new metric selection").length, 3);

  // A different watch (a label selector): a new collector replaces the old one.
  await manager.applyConfig(
    config({
      metricPrefix: "kube_cr_",
      resources: entries({
        readyCondition: "Available",
        metrics: { deny: ["kube_cr_condition_reason"] },
        labelSelector: "team=a",
      }),
    }),
  );
  const replaced = byResource(manager, "widgets");
  assert.ok(replaced && replaced !== widgets, "a new collector for the new watch");
  assert.equal(replaced.settings.scope.labelSelector, "team=a");
  assert.equal(widgets.status().synced, false, "the old collector is stopped");
  assert.deepEqual(
    logged("resource reconfigured").map((l) => l.fields.resource),
    ["example.com/widgets"],
  );
  assert.equal(byResource(manager, "gadgets"), gadgets, "the unchanged resource keeps its collector");

  // An entry removed: its collector stops.
  await manager.applyConfig(config({ metricPrefix: "kube_cr_", resources: entries({}).slice(0, 1) }));
  assert.deepEqual(keys(manager), ["example.com/widgets"]);
  assert.deepEqual(
    logged("resource no longer watched").map((l) => l.fields.resource),
    ["example.com/gadgets"],
  );
  assert.equal(logged("metric prefix changed").length, 1, "logged only when the prefix changes");
});

test("turning CRD discovery off stops the CRD watch and plans from the entries alone; on again, it watches CRDs again", async (t) => {
  const cluster = fakeCluster();
  cluster.crds.set("widgets.example.com", crd("widgets"));
  const { manager } = startManager(t, cluster);
  const explicit = [
    { group: "example.com", resource: "widgets", version: "v1", kind: "Widget", namespaced: true },
  ];
  await manager.applyConfig(config({ resources: explicit }));
  await waitFor(
    () => cluster.crdWatches.length === 1,
    "the CRD watch",
    () => cluster.calls,
  );
  const crdWatch = cluster.crdWatches[0];
  await manager.applyConfig(config({ crdDiscovery: false, resources: explicit }));
  assert.equal(crdWatch?.signal.aborted, true, "the CRD watch is stopped");
  assert.equal(manager.readiness().crds, undefined);
  assert.deepEqual(keys(manager), ["example.com/widgets"]);
  const crdLists = cluster.calls.filter((c) => c.path === crdPath && c.kind === "list").length;

  // The CRD goes while discovery is off; turned on again, the new list decides,
  // and until it answers nothing is stopped and nothing reads as missing.
  cluster.crds.clear();
  const release = holdCrdLists(t, cluster);
  const running = byResource(manager, "widgets");
  await manager.applyConfig(config({ resources: explicit }));
  const relisting = manager.readiness();
  assert.deepEqual(relisting.crds, { synced: false, error: undefined }, "not synced until listed again");
  assert.deepEqual(relisting.missing, []);
  assert.equal(byResource(manager, "widgets"), running, "the collector keeps running meanwhile");
  release();
  await waitFor(
    () => cluster.calls.filter((c) => c.path === crdPath && c.kind === "list").length === crdLists + 1,
    "the CRDs listed again",
    () => cluster.calls,
  );
  await waitFor(
    () => keys(manager).length === 0,
    "the collector of the CRD that is gone stopped",
    () => keys(manager),
  );
  assert.equal(manager.readiness().missing.length, 1);
});

test("past the watch-total limit the plans that do not fit are not started, readiness says so, logged once", async (t) => {
  const cluster = fakeCluster();
  for (const plural of ["alphas", "betas", "gammas"]) cluster.crds.set(`${plural}.example.com`, crd(plural));
  const { manager, logged } = startManager(t, cluster);
  // 3 matched CRDs × 400 namespaces = 1,200 list/watches, 1,000 allowed: two fit.
  const namespaces = Array.from({ length: 400 }, (_, i) => `ns${i}`);
  await manager.applyConfig(examples({ namespaces }));
  await waitFor(
    () => keys(manager).length === 2,
    "the plans that fit",
    () => keys(manager),
  );
  assert.deepEqual(keys(manager), ["example.com/alphas", "example.com/betas"], "kept in key order");
  const readiness = manager.readiness();
  assert.match(
    readiness.overLimit ?? "",
    /need 1200 list\/watches.*1 resources not watched \(example\.com\/gammas\)/,
  );
  assert.equal(readiness.ready, false, "over the limit: not ready");
  assert.equal(logged("watch limit reached").length, 1);
  assert.equal(
    logged("watch limit reached")[0]?.fields.error,
    readiness.overLimit,
    "the log says what is over",
  );

  // Planned again (an unrelated CRD event, a reload): the same excess is not logged again.
  cluster.crdEvent("ADDED", crd("others", "other.io"));
  await manager.applyConfig(examples({ namespaces }));
  assert.equal(logged("watch limit reached").length, 1, "the same excess is logged once");

  // Narrowed back under the limit: every plan runs and readiness no longer reports it.
  await manager.applyConfig(examples({ namespaces: namespaces.slice(0, 300) }));
  assert.deepEqual(keys(manager), ["example.com/alphas", "example.com/betas", "example.com/gammas"]);
  assert.equal(manager.readiness().overLimit, undefined);
  assert.equal(logged("watch limit reached").length, 1, "back under the limit is not an error");
});

test("objects that change the detected status shape are logged and the running collector judges again", async (t) => {
  const cluster = fakeCluster();
  const runs = { ...loadCorpusCrd("runs"), status: established };
  cluster.crds.set(`runs.${corpusGroup}`, runs);
  const run = {
    apiVersion: `${corpusGroup}/v1alpha1`,
    kind: "Run",
    metadata: { name: "r1", namespace: "ns1", uid: "uid-r1", resourceVersion: "3", generation: 1 },
    status: { observedGeneration: 1, conditions: [cond("Succeeded", "False")] },
  };
  cluster.objects.set(`/apis/${corpusGroup}/v1alpha1/runs`, [run]);
  const { manager, logged } = startManager(t, cluster);
  await manager.applyConfig(
    config({ resources: [{ group: corpusGroup, resource: "runs", version: "v1alpha1" }] }),
  );
  await waitFor(
    () => logged("status shape decision changed").length === 1,
    "the decision changed by the listed run",
    () => logged("status shape decision changed"),
  );
  assert.equal(logged("status shape decision changed")[0]?.fields.crd, `runs.${corpusGroup}/v1alpha1`);
  await waitFor(
    () => logged("resource judged again").length === 1,
    "the collector judged again",
    () => logged("resource judged again"),
  );
  const collector = byResource(manager, "runs");
  assert.equal(collector?.settings.kind.readiness.readyCondition, "Succeeded", "the learned condition");
  assert.equal(logged("watching resource").length, 1, "the same collector: no restart, no relist");
});

test("stop() stops the CRD watch and every collector", async (t) => {
  const cluster = fakeCluster();
  cluster.crds.set("widgets.example.com", crd("widgets"));
  const { manager } = startManager(t, cluster);
  await manager.applyConfig(examples());
  await waitFor(
    () => manager.readiness().ready,
    "ready",
    () => manager.readiness(),
  );
  const [widgets] = manager.collectors();
  await manager.stop();
  assert.deepEqual(manager.collectors(), []);
  assert.equal(widgets?.status().synced, false);
  assert.ok(cluster.crdWatches.every((w) => w.signal.aborted));
});

test("a collector starts with the family selection of the configuration and its entry: the same reload re-renders nothing", async (t) => {
  const cluster = fakeCluster();
  const { manager, logged } = startManager(t, cluster);
  const explicit = {
    group: "example.com",
    resource: "widgets",
    version: "v1",
    kind: "Widget",
    namespaced: true,
  };
  const selective = config({
    crdDiscovery: false,
    metrics: { deny: ["cr_condition_reason"] },
    resources: [{ ...explicit, metrics: { deny: ["cr_phase"] } }],
  });
  await manager.applyConfig(selective);
  const widgets = byResource(manager, "widgets");
  assert.ok(widgets);
  const names = (selection: FamilySelection) =>
    selectableFamilies("cr_")
      .filter((f) => f.group === "objects" && (selection.objects & f.bit) !== 0)
      .map((f) => f.name);
  const selected = names(widgets.settings.selection);
  assert.deepEqual(
    names(defaultSelection).filter((name) => !selected.includes(name)),
    ["cr_condition_reason", "cr_phase"],
    "both levels' denials apply from the start",
  );
  await manager.applyConfig(selective);
  assert.equal(byResource(manager, "widgets"), widgets);
  assert.deepEqual(logged("resource re-rendered for a new metric selection"), []);
});

test("the watching log names the resource, its version, kind, status subresource and the detected shape", async (t) => {
  const cluster = fakeCluster();
  cluster.crds.set("widgets.example.com", crd("widgets"));
  const { manager, logged } = startManager(t, cluster);
  await manager.applyConfig(examples());
  await waitFor(
    () => logged("watching resource").length === 1,
    "the widgets collector",
    () => logged("watching resource"),
  );
  const fields = logged("watching resource")[0]?.fields ?? {};
  assert.equal(fields.resource, "example.com/widgets");
  assert.equal(fields.version, "v1");
  assert.equal(fields.kind, "Widget");
  assert.equal(fields.statusSubresource, true);
  assert.equal(typeof fields.detected, "object", `detected in ${JSON.stringify(fields)}`);
});

test("a CRD watch line that is not JSON is logged as skipped with the parse error, and the watch goes on", async (t) => {
  const cluster = fakeCluster();
  const { manager, logged } = startManager(t, cluster);
  await manager.applyConfig(examples());
  await waitFor(
    () => manager.readiness().crds?.synced === true,
    "the CRDs listed",
    () => manager.readiness(),
  );
  cluster.crdWatches.at(-1)?.onLine("{not json");
  assert.match(String(logged("CRD skipped")[0]?.fields.error), /SyntaxError/);
  cluster.crdEvent("ADDED", crd("widgets"));
  await waitFor(
    () => keys(manager).includes("example.com/widgets"),
    "the next CRD followed",
    () => keys(manager),
  );
});

test("a failed reshard does not stop the plans queued after it", async (t) => {
  const cluster = fakeCluster();
  cluster.objects.set("/apis/example.com/v1/widgets", [
    { metadata: { name: "w1", namespace: "ns1", uid: "uid-w1", resourceVersion: "3" } },
  ]);
  const sharding = { broken: false };
  const { manager } = startManager(t, cluster, {
    owns: () => {
      if (sharding.broken) throw new Error("shard assignment unreadable");
      return true;
    },
  });
  const entry = (resource: string, kind: string) => ({
    group: "example.com",
    resource,
    version: "v1",
    kind,
    namespaced: true,
  });
  await manager.applyConfig(config({ crdDiscovery: false, resources: [entry("widgets", "Widget")] }));
  await waitFor(
    () => byResource(manager, "widgets")?.store.size === 1,
    "the widget held",
    () => keys(manager),
  );
  sharding.broken = true;
  await assert.rejects(manager.reshard(false), /shard assignment unreadable/);
  sharding.broken = false;
  await manager.applyConfig(
    config({ crdDiscovery: false, resources: [entry("widgets", "Widget"), entry("gadgets", "Gadget")] }),
  );
  assert.deepEqual(keys(manager), ["example.com/gadgets", "example.com/widgets"]);
});

/** The corpus' runs CRD (v1alpha1 declares no condition types) with one run whose conditions teach Succeeded. */
function learningRuns(cluster: Cluster) {
  const runs = { ...loadCorpusCrd("runs"), status: established } as {
    spec: { versions: { name: string }[] };
  };
  cluster.crds.set(`runs.${corpusGroup}`, runs);
  cluster.objects.set(`/apis/${corpusGroup}/v1alpha1/runs`, [
    {
      apiVersion: `${corpusGroup}/v1alpha1`,
      kind: "Run",
      metadata: { name: "r1", namespace: "ns1", uid: "uid-r1", resourceVersion: "3", generation: 1 },
      status: { observedGeneration: 1, conditions: [cond("Succeeded", "False")] },
    },
  ]);
  return runs;
}

const runsEntry = () =>
  config({ resources: [{ group: corpusGroup, resource: "runs", version: "v1alpha1" }] });

test("a CRD deleted and installed again learns its status shape afresh", async (t) => {
  const cluster = fakeCluster();
  const runs = learningRuns(cluster);
  const { manager, logged } = startManager(t, cluster);
  await manager.applyConfig(runsEntry());
  await waitFor(
    () => byResource(manager, "runs")?.settings.kind.readiness.readyCondition === "Succeeded",
    "the learned condition",
    () => logged("status shape decision changed"),
  );
  cluster.crdEvent("DELETED", runs);
  await waitFor(
    () => keys(manager).length === 0,
    "the collector of the deleted CRD stopped",
    () => keys(manager),
  );
  cluster.crdEvent("ADDED", runs);
  await waitFor(
    () => logged("status shape decision changed").length === 2,
    "the decision learned again from the listed run",
    () => logged("status shape decision changed"),
  );
});

test("a CRD update that changes the version's schema decides its shape from the new schema", async (t) => {
  const cluster = fakeCluster();
  const runs = learningRuns(cluster);
  const { manager } = startManager(t, cluster);
  await manager.applyConfig(runsEntry());
  await waitFor(
    () => byResource(manager, "runs")?.settings.kind.readiness.readyCondition === "Succeeded",
    "the learned condition",
    () => byResource(manager, "runs")?.settings.kind.readiness,
  );
  // The new schema declares the condition types: Ready only.
  const versions = runs.spec.versions.map((v) =>
    v.name === "v1alpha1" ? { ...v, schema: statusSchema } : v,
  );
  cluster.crdEvent("MODIFIED", { ...runs, spec: { ...runs.spec, versions } });
  await waitFor(
    () => byResource(manager, "runs")?.settings.kind.readiness.readyCondition === "Ready",
    "the condition the new schema declares",
    () => byResource(manager, "runs")?.settings.kind.readiness,
  );
});

test("a reconfigured resource's new collector takes up the trace records the old one kept", async (t) => {
  const cluster = fakeCluster();
  cluster.crds.set("widgets.example.com", crd("widgets"));
  const seen: string[] = [];
  const tracer: StateTracer = {
    observe: (o, record) => {
      seen.push(`${o.current?.resourceVersion ?? "-"} from ${record ? record.tracedGeneration : "none"}`);
      return {
        record: { open: undefined, tracedGeneration: Number(o.current?.resourceVersion) },
        traced: undefined,
      };
    },
    traceIdFor: () => undefined,
    tick: (record) => record,
    endsOpenSpansOnShutdown: false,
    interrupt: () => {},
    shutdown: async () => {},
  };
  const { manager } = startManager(t, cluster, { tracer });
  const widgets = (options: Record<string, unknown>) =>
    config({ resources: [{ group: "example.com", resource: "widgets", ...options }] });
  await manager.applyConfig(widgets({}));
  await waitFor(
    () => byResource(manager, "widgets") !== undefined,
    "the collector",
    () => keys(manager),
  );
  const object = (resourceVersion: string) => ({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w1", namespace: "ns", uid: "uid-w1", resourceVersion, generation: 1 },
  });
  byResource(manager, "widgets")?.ingest("ADDED", object("7"));
  // The new collector's first list finds the object again (changed meanwhile), and one it never held.
  cluster.objects.set("/apis/example.com/v1/widgets", [object("8")]);
  await manager.applyConfig(widgets({ labelSelector: "team=a" }));
  const replaced = byResource(manager, "widgets");
  await waitFor(
    () => replaced?.status().initialSyncDone === true,
    "the new collector's list",
    () => seen,
  );
  assert.deepEqual(seen, ["7 from none", "8 from 7"], "the replacing collector handed on the record of rv 7");
  replaced?.ingest("MODIFIED", object("9"));
  assert.deepEqual(seen.at(-1), "9 from 8", "then its own record");
});

test("cr_exporter_value_candidate_info: the schema's numeric and date-time status fields that values does not export, gone with the CRD", async (t) => {
  const cluster = fakeCluster();
  const widgets = crd("widgets");
  const version = widgets.spec.versions[0] as { schema: unknown };
  version.schema = {
    openAPIV3Schema: {
      type: "object",
      properties: {
        status: {
          type: "object",
          properties: {
            ...statusSchema.openAPIV3Schema.properties.status.properties,
            readyReplicas: { type: "integer" },
            expiresAt: { type: "string", format: "date-time" },
            message: { type: "string" },
          },
        },
      },
    },
  };
  cluster.crds.set("widgets.example.com", widgets);
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const { manager } = startManager(t, cluster, { metrics });
  const candidates = async () =>
    (await metrics.registry.metrics())
      .split("\n")
      .filter((l) => l.startsWith("cr_exporter_value_candidate_info{"))
      .map((l) => l.replace(/^.*path="([^"]+)",type="([^"]+)".*$/, "$1 $2"))
      .sort();
  await manager.applyConfig(examples({ values: [{ path: "status.readyReplicas" }] }));
  await waitFor(
    () => keys(manager).length === 1,
    "the widgets collector",
    () => keys(manager),
  );
  // observedGeneration is the generation's, and readyReplicas is exported already: neither is proposed.
  assert.deepEqual(await candidates(), ["status.expiresAt timestamp"]);
  await manager.applyConfig(examples());
  await eventually("both proposed without values", async () =>
    (await candidates()).length === 2 ? true : undefined,
  );
  assert.deepEqual(await candidates(), ["status.expiresAt timestamp", "status.readyReplicas number"]);
  cluster.crdEvent("DELETED", widgets);
  await waitFor(
    () => keys(manager).length === 0,
    "the collector stopped",
    () => keys(manager),
  );
  assert.deepEqual(await candidates(), []);
});

test("valueCandidates: export reads every candidate as a value of each object and lists none in cr_exporter_value_candidate_info; propose again lists them and reads none", async (t) => {
  const cluster = fakeCluster();
  const widgets = crd("widgets");
  const version = widgets.spec.versions[0] as { schema: unknown };
  const status = statusSchema.openAPIV3Schema.properties.status;
  version.schema = {
    openAPIV3Schema: {
      type: "object",
      properties: {
        status: {
          ...status,
          properties: {
            ...status.properties,
            readyReplicas: { type: "integer" },
            expiresAt: { type: "string", format: "date-time" },
          },
        },
      },
    },
  };
  cluster.crds.set("widgets.example.com", widgets);
  cluster.objects.set("/apis/example.com/v1/widgets", [
    {
      metadata: { name: "w1", namespace: "ns1", uid: "uid-w1", resourceVersion: "3", generation: 1 },
      status: { observedGeneration: 1, readyReplicas: 2, expiresAt: "2026-06-01T12:00:00Z" },
    },
  ]);
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const { manager } = startManager(t, cluster, { metrics });
  const candidates = async () =>
    (await metrics.registry.metrics())
      .split("\n")
      .filter((l) => l.startsWith("cr_exporter_value_candidate_info{"))
      .map((l) => l.replace(/^.*path="([^"]+)".*$/, "$1"))
      .sort();
  const values = () => byResource(manager, "widgets")?.store.get("uid-w1")?.state.values;
  await manager.applyConfig(examples({ valueCandidates: "export" }));
  const read = await eventually("the widget read", async () => values());
  assert.deepEqual(read, [
    { name: "readyReplicas", value: 2 },
    { name: "expiresAt", value: Date.parse("2026-06-01T12:00:00Z") / 1000 },
  ]);
  assert.deepEqual(await candidates(), [], "exported: no longer proposed");
  await manager.applyConfig(examples());
  await eventually("proposed again", async () => ((await candidates()).length === 2 ? true : undefined));
  assert.deepEqual(await candidates(), ["status.expiresAt", "status.readyReplicas"]);
  assert.deepEqual(await eventually("the widget read again", async () => values()), []);
});
