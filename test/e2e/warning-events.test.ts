// Kubernetes Warning events on a real kube-apiserver: events.k8s.io/v1 Events
// written as a controller writes them (regarding a fixture widget, then their
// series.count raised), counted once per occurrence; no double counting
// across an exporter restart; an event about an unwatched kind ignored; the
// latest warning in the status API; a storm of 10,000 events bounded in
// series; and an exporter that may not list events says so once and exports
// everything else.
import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import { createCr, installCrd, refFor, useControlPlane } from "../cluster/index.ts";
import type { RestClient } from "../cluster/rest.ts";
import { type ExporterHandle, eventually, runExporter, series } from "../support/exporter.ts";

const testbed = useControlPlane();
const config = {
  resources: [{ group: "example.com", resource: "widgets" }],
  warningEvents: { maxReasons: 10 },
};
let exporter: ExporterHandle;

before(async () => {
  await installCrd((await testbed.ready()).admin.rest, "widgets");
  exporter = await runExporter(testbed.plane.kubeconfigPath, config);
  await eventually("exporter ready", async () => (await fetch(`${exporter.exporter.url}/readyz`)).ok);
});

afterEach((t) => {
  if ("passed" in t && !t.passed && exporter)
    console.error(`# exporter log tail:\n${exporter.logs.slice(-40).join("\n")}`);
});

after(async () => {
  await exporter?.stop();
});

/** A MicroTime, as client-go writes eventTime and series.lastObservedTime. */
const micro = (ms = Date.now()): string => new Date(ms).toISOString().replace("Z", "000Z");

interface Regarding {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

/** Creates a Warning event the way client-go's events recorder does on its first occurrence. */
function createWarning(
  rest: RestClient,
  namespace: string,
  name: string,
  regarding: Regarding,
  reason: string,
  note = `${reason}: something went wrong`,
): Promise<{ metadata: { uid: string } }> {
  return rest.create(`/apis/events.k8s.io/v1/namespaces/${namespace}/events`, {
    metadata: { name },
    eventTime: micro(),
    reportingController: "example.com/widget-controller",
    reportingInstance: "widget-controller-0",
    action: "Reconcile",
    type: "Warning",
    reason,
    note,
    regarding,
  });
}

/** The same thing happened again: the recorder raises series.count (2 on the second occurrence). */
function repeatWarning(rest: RestClient, namespace: string, name: string, count: number) {
  return rest.patch(`/apis/events.k8s.io/v1/namespaces/${namespace}/events/${name}`, {
    series: { count, lastObservedTime: micro() },
  });
}

/** The object's latest warning as the status API answers it. */
async function apiWarning(
  handle: ExporterHandle,
  uid: string,
): Promise<{ reason: string; message: string; at: string | null } | null | undefined> {
  const answer = (await (await fetch(`${handle.exporter.url}/api/v1/objects/${uid}`)).json()) as {
    object?: { warning: { reason: string; message: string; at: string | null } | null };
  };
  return answer.object?.warning;
}

const counted = async (
  handle: ExporterHandle,
  namespace: string,
  reason: string,
): Promise<number | undefined> =>
  (await handle.scrape()).samples.get(
    series("cr_warning_events_total", { group: "example.com", kind: "Widget", namespace, reason }),
  );

async function widgetIn(namespace: string, name: string): Promise<Regarding & { uid: string }> {
  const rest = testbed.plane.admin.rest;
  const created = await createCr(rest, refFor("widgets", namespace), name, { size: 1 });
  await eventually("widget held", async () => (await exporter.scrape()).text.includes(`name="${name}"`));
  return { apiVersion: "example.com/v1", kind: "Widget", namespace, name, uid: created.metadata.uid };
}

test("each occurrence is counted once: new event, higher count, same count again, deleted", async () => {
  const rest = testbed.plane.admin.rest;
  const ns = await testbed.plane.createNamespace("warn");
  const widget = await widgetIn(ns, "stuck");
  await createWarning(rest, ns, "stuck.backoff", widget, "BackOff");
  await eventually("first occurrence", async () => (await counted(exporter, ns, "BackOff")) === 1);
  await repeatWarning(rest, ns, "stuck.backoff", 4);
  await eventually("three more", async () => (await counted(exporter, ns, "BackOff")) === 4);
  // The same count again (a recorder that rewrites only lastObservedTime): nothing more.
  await repeatWarning(rest, ns, "stuck.backoff", 4);
  // Another reason after it, so the scrape below is known to have seen the rewrite.
  await createWarning(rest, ns, "stuck.failed", widget, "Failed");
  await eventually("the other reason", async () => (await counted(exporter, ns, "Failed")) === 1);
  assert.equal(await counted(exporter, ns, "BackOff"), 4);
  // Deleted (as its TTL does): what it counted stays.
  await rest.delete(`/apis/events.k8s.io/v1/namespaces/${ns}/events/stuck.backoff`);
  await createWarning(rest, ns, "stuck.failed2", widget, "Failed");
  await eventually("after the delete", async () => (await counted(exporter, ns, "Failed")) === 2);
  assert.equal(await counted(exporter, ns, "BackOff"), 4);
  // The events' own watch has its telemetry, like any resource.
  const scrape = await exporter.scrape();
  const events = { group: "events.k8s.io", version: "v1", kind: "Event" };
  assert.equal(scrape.samples.get(series("cr_exporter_resource_synced", events)), 1);
  assert.ok(
    (scrape.samples.get(series("cr_exporter_watch_events_total", { ...events, type: "ADDED" })) ?? 0) >= 3,
  );
});

test("an event about an unwatched kind is ignored", async () => {
  const rest = testbed.plane.admin.rest;
  const ns = await testbed.plane.createNamespace("warnx");
  const widget = await widgetIn(ns, "w");
  await createWarning(
    rest,
    ns,
    "gadget.fail",
    { ...widget, kind: "Gadget", uid: "gadget-uid" },
    "GadgetFail",
  );
  await createWarning(
    rest,
    ns,
    "deploy.fail",
    { apiVersion: "apps/v1", kind: "Deployment", namespace: ns, name: "w" },
    "DeployFail",
  );
  await createWarning(rest, ns, "w.fail", widget, "WidgetFail");
  await eventually("the widget's event", async () => (await counted(exporter, ns, "WidgetFail")) === 1);
  const text = (await exporter.scrape()).text;
  assert.doesNotMatch(text, /GadgetFail|DeployFail/);
});

test("the status API shows an object's latest warning", async () => {
  const rest = testbed.plane.admin.rest;
  const ns = await testbed.plane.createNamespace("warnapi");
  const widget = await widgetIn(ns, "api");
  await createWarning(
    rest,
    ns,
    "api.pull",
    widget,
    "ImagePullBackOff",
    "Back-off pulling image example/widget:1",
  );
  const shown = await eventually("the warning", async () => {
    const warning = await apiWarning(exporter, widget.uid);
    return warning?.reason === "ImagePullBackOff" ? warning : undefined;
  });
  assert.equal(shown.message, "Back-off pulling image example/widget:1");
  // A newer event replaces it, its long message cut to 256 characters.
  await createWarning(rest, ns, "api.crash", widget, "CrashLoop", "x".repeat(1000));
  const cut = await eventually("the newer event", async () => {
    const warning = await apiWarning(exporter, widget.uid);
    return warning?.reason === "CrashLoop" ? warning.message : undefined;
  });
  assert.equal(cut.length, 256);
  assert.ok(cut.endsWith("..."));
});

test("across an exporter restart no occurrence is counted twice", async () => {
  const rest = testbed.plane.admin.rest;
  const ns = await testbed.plane.createNamespace("warnrs");
  const widget = await widgetIn(ns, "rs");
  await createWarning(rest, ns, "rs.fail", widget, "Restarted");
  await repeatWarning(rest, ns, "rs.fail", 3);
  await eventually(
    "counted by the first process",
    async () => (await counted(exporter, ns, "Restarted")) === 3,
  );
  const second = await runExporter(testbed.plane.kubeconfigPath, config);
  try {
    await eventually("second exporter holds the widget", async () =>
      (await second.scrape()).text.includes(`name="rs"`),
    );
    // Its list found the event with count 3: history, not counted again.
    await eventually(
      "events listed",
      async () =>
        (await second.scrape()).samples.get(
          series("cr_exporter_resource_synced", { group: "events.k8s.io", version: "v1", kind: "Event" }),
        ) === 1,
    );
    assert.equal(await counted(second, ns, "Restarted"), undefined);
    await repeatWarning(rest, ns, "rs.fail", 5);
    await eventually("two new occurrences", async () => (await counted(second, ns, "Restarted")) === 2);
    await eventually(
      "and two for the first process",
      async () => (await counted(exporter, ns, "Restarted")) === 5,
    );
    // The latest warning is shown from the list, history or not.
    assert.equal((await apiWarning(second, widget.uid))?.reason, "Restarted");
  } finally {
    await second.stop();
  }
});

test("a storm of 10,000 events stays within maxReasons + 1 series for the kind", async () => {
  const rest = testbed.plane.admin.rest;
  const ns = await testbed.plane.createNamespace("storm");
  const widget = await widgetIn(ns, "storm");
  const total = 10_000;
  let next = 0;
  const started = Date.now();
  // Bounded concurrency: 16 writers.
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < total; i = next++)
        await createWarning(rest, ns, `storm.${i}`, widget, `Reason${i % 40}`, `storm ${i}`);
    }),
  );
  const createdMs = Date.now() - started;
  const perKind = async (): Promise<Map<string, number>> => {
    const out = new Map<string, number>();
    for (const [key, value] of (await exporter.scrape()).samples)
      if (key.startsWith("cr_warning_events_total{") && key.includes(`namespace="${ns}"`))
        out.set(key, value);
    return out;
  };
  const counts = await eventually(
    "every occurrence counted",
    async () => {
      const c = await perKind();
      return [...c.values()].reduce((a, b) => a + b, 0) === total ? c : undefined;
    },
    120_000,
  );
  console.error(`# ${total} events created in ${createdMs} ms; ${counts.size} series`);
  assert.ok(counts.size <= config.warningEvents.maxReasons + 1, `${counts.size} series`);
  assert.ok([...counts.keys()].some((k) => k.includes('reason="other"')));
  // Over the kind's every namespace too: at most maxReasons reasons and "other".
  const reasons = new Set<string>();
  for (const key of (await exporter.scrape()).samples.keys())
    if (key.startsWith("cr_warning_events_total{")) reasons.add(/reason="([^"]*)"/.exec(key)?.[1] ?? "");
  assert.ok(reasons.size <= config.warningEvents.maxReasons + 1, [...reasons].join());
});

test("an exporter that may not list events warns once and exports everything else", async () => {
  const ns = await testbed.plane.createNamespace("warnrbac");
  const user = testbed.plane.mintUser();
  await testbed.plane.grantCluster(user, [
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["list", "watch"] },
    {
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      verbs: ["list", "watch"],
    },
  ]);
  const limited = await runExporter(user.kubeconfigPath, config);
  try {
    await createCr(testbed.plane.admin.rest, refFor("widgets", ns), "seen", { size: 1 });
    await eventually("widgets exported", async () => (await limited.scrape()).text.includes(`name="seen"`));
    const warning = await eventually("the warning", async () =>
      limited.logs.find((l) => l.includes("events.k8s.io/v1/events") && l.includes('"level":"warn"')),
    );
    assert.match(warning, /403/);
    assert.match(warning, /grant list and watch on events\.k8s\.io events/);
    assert.equal((await fetch(`${limited.exporter.url}/readyz`)).status, 200);
    const events = { group: "events.k8s.io", version: "v1", kind: "Event" };
    const scrape = await limited.scrape();
    assert.equal(scrape.samples.get(series("cr_exporter_resource_synced", events)), 0);
    assert.ok(
      (scrape.samples.get(
        series("cr_exporter_watch_errors_total", { ...events, operation: "list", code: "403" }),
      ) ?? 0) >= 1,
    );
  } finally {
    await limited.stop();
  }
});
