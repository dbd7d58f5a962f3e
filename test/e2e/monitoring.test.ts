// The shipped alert rules and dashboards against the real exporter: a real
// kube-apiserver, the exporter watching it (and proxying an operator's status
// writes), and a real Prometheus scraping the exporter with the rules the Helm
// chart renders. The chart is rendered with nameOverride, so the scraped job is
// not "cr-status-exporter": Prometheus (3.x, as kube-prometheus-stack ships it) gets the job the way prometheus-operator
// derives it from the rendered ServiceMonitor and Service (relabelling of the
// Service's labels), and the rendered rules must follow it. A widget driven to
// Ready=False must raise CustomResourceNotReady once its lastTransitionTime is
// older than the alert's duration (firing at once: the rule has no `for`; with
// the severity and routing label set in the values, the condition's type and
// reason as labels), fire the alert with the new reason at once when the reason
// changes, and resolve it when Ready turns True; the heartbeat-age and
// condition-staleness alerts (switched on in the values) must fire and resolve;
// with the default metric set, every dashboard panel query must return data,
// except the panels on opt-in families, which must show their note instead.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { RuleGroup } from "../../alerts/src/index.ts";
import { panelQueries } from "../../dashboards/src/index.ts";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import {
  changeSpec,
  condition,
  createCr,
  getCr,
  installCrd,
  patchStatus,
  refFor,
  useControlPlane,
} from "../cluster/index.ts";
import { find, helmTemplate } from "../deploy/render.ts";
import { serviceMonitorScrape } from "../deploy/service-monitor.ts";
import { resolveDeployTools } from "../deploy/tools.ts";
import { HttpJsonClient } from "../helpers/http-json.ts";
import type { PromAlert, PrometheusServer } from "../prometheus/index.ts";
import { type RulesPrometheus, startWithRules } from "../prometheus/with-rules.ts";
import { type ExporterHandle, eventually, runExporter } from "../support/exporter.ts";

// The job prometheus-operator gives the chart's targets with nameOverride: crs.
const JOB = "crs";
const testbed = useControlPlane();
let exporter: ExporterHandle;
let prometheus: PrometheusServer;
let withRules: RulesPrometheus | undefined;
let ns = "";

before(async () => {
  const plane = await testbed.ready();
  await installCrd(plane.admin.rest, "widgets");
  await installCrd(plane.admin.rest, "gadgets");
  await installCrd(plane.admin.rest, "gizmos");
  ns = await plane.createNamespace("mon");
  exporter = await runExporter(plane.kubeconfigPath, {
    resources: [
      {
        group: "example.com",
        resource: "widgets",
        // The default set (what the dashboards are checked against), with a heartbeat.
        heartbeatField: "status.lastHeartbeatTime",
        phaseTransitions: { Pending: ["Provisioning"], Provisioning: ["Running"], Running: ["Failed"] },
      },
      // A tiny series cap, so the series-dropped panels have something to show.
      { group: "example.com", resource: "gadgets", maxSeries: 5 },
      // The opt-in family of the condition-staleness alert (no dashboard panel reads it).
      { group: "example.com", resource: "gizmos", metrics: { optIn: ["cr_condition_stale"] } },
    ],
    apiProxy: { listen: "127.0.0.1:0" },
  });
  await eventually("exporter ready", async () => (await fetch(`${exporter.exporter.url}/readyz`)).ok);
  // The chart, as a user with nameOverride and a shortened, paging NotReady alert would install it.
  const objects = helmTemplate(
    resolveDeployTools(),
    join(repositoryRoot, "deploy", "helm", "cr-status-exporter"),
    {
      release: "platform",
      values: {
        nameOverride: JOB,
        serviceMonitor: { enabled: true, interval: "1s" },
        prometheusRule: {
          enabled: true,
          additionalRuleLabels: { team: "platform" },
          // No keep_firing_for, so that resolution is seen as soon as Ready turns True.
          keepFiringFor: "",
          thresholds: { heartbeatSeconds: 120 },
          alerts: {
            CustomResourceNotReady: { for: "4s", severity: "critical" },
            // Off by default: the families are exported here (heartbeatField, the gizmos' opt-in).
            CustomResourceHeartbeatStale: { enabled: true, for: "2s" },
            CustomResourceConditionStale: { enabled: true, for: "2s" },
          },
        },
      },
    },
  );
  const rules = find(objects, "PrometheusRule").spec as { groups: RuleGroup[] };
  // Prometheus 3, as kube-prometheus-stack ships it (left-open range selectors, its scrape protocol negotiation).
  withRules = await startWithRules(
    [serviceMonitorScrape(objects, new URL(exporter.exporter.url).host)],
    rules.groups,
    "3",
  );
  prometheus = withRules.server;
});

after(async () => {
  await withRules?.stop();
  await exporter?.stop();
});

/** A status write sent by an "operator" through the exporter's API proxy. */
async function throughProxy(
  path: string,
  method: string,
  body: unknown,
  contentType: string,
): Promise<number> {
  const { proxyUrl, proxyCaPem } = exporter.exporter.statusWrites;
  assert.ok(proxyUrl, "the API proxy is running");
  const client = new HttpJsonClient(proxyUrl, testbed.plane.admin.token, proxyCaPem);
  try {
    return (await client.send(method, path, body, contentType)).status;
  } finally {
    client.close();
  }
}

test("a widget driven to Ready=False fires CustomResourceNotReady through the real exporter", async () => {
  const rest = testbed.plane.admin.rest;
  const ref = refFor("widgets", ns, "w1");
  await createCr(rest, ref, "w1", { size: 1 });
  await patchStatus(rest, ref, {
    observedGeneration: 1,
    phase: "Running",
    conditions: [condition("Ready", "True", "Ok", "", 1)],
  });
  await prometheus.waitFor("the exporter to be scraped", async () =>
    (await prometheus.query(`cr_condition{job="${JOB}",name="w1",type="Ready",status="True"} == 1`))
      .length === 1
      ? true
      : undefined,
  );
  assert.deepEqual(
    (await prometheus.alerts()).filter((a) => a.labels.alertname === "CustomResourceNotReady"),
    [],
  );
  // Controllers keep lastTransitionTime while the status stays False, whatever the reason.
  const notReadySince = new Date();
  await patchStatus(rest, ref, {
    conditions: [condition("Ready", "False", "ImagePullBackOff", "cannot pull", 1, notReadySince)],
  });
  const seen: PromAlert["state"][] = [];
  const firing = await prometheus.waitFor(
    "CustomResourceNotReady to fire",
    async () => {
      const alert = (await prometheus.alerts()).find(
        (a) => a.labels.alertname === "CustomResourceNotReady" && a.labels.name === "w1",
      );
      if (alert && seen.at(-1) !== alert.state) seen.push(alert.state);
      return alert?.state === "firing" ? alert : undefined;
    },
    60_000,
  );
  // The duration (4s) is in the expression: no `for`, so no pending phase.
  assert.deepEqual(seen, ["firing"]);
  assert.equal(firing.labels.namespace, ns);
  assert.equal(firing.labels.kind, "Widget");
  assert.equal(firing.labels.severity, "critical");
  assert.equal(firing.labels.team, "platform");
  assert.equal(firing.labels.type, "Ready");
  assert.equal(firing.labels.reason, "ImagePullBackOff");
  assert.match(
    firing.annotations.description ?? "",
    /Ready=False for more than 4s; reason: ImagePullBackOff\.$/,
  );

  // False/ImagePullBackOff → False/QuotaExceeded, lastTransitionTime unchanged: the alert with the new
  // reason fires at once (never pending, no second wait) and, without keep_firing_for here, the one with
  // the old reason resolves.
  await patchStatus(rest, ref, {
    conditions: [condition("Ready", "False", "QuotaExceeded", "over quota", 1, notReadySince)],
  });
  const states: string[] = [];
  const changed = await prometheus.waitFor(
    "the alert with the new reason",
    async () => {
      const alerts = (await prometheus.alerts()).filter(
        (a) => a.labels.alertname === "CustomResourceNotReady" && a.labels.name === "w1",
      );
      states.push(...alerts.map((a) => `${a.labels.reason}:${a.state}`));
      return alerts.length === 1 && alerts[0]?.labels.reason === "QuotaExceeded" ? alerts[0] : undefined;
    },
    30_000,
  );
  assert.equal(changed.state, "firing");
  assert.deepEqual(
    [...new Set(states)].filter((s) => s.startsWith("QuotaExceeded:")),
    ["QuotaExceeded:firing"],
    "the new reason never went pending",
  );
  assert.match(changed.annotations.description ?? "", /reason: QuotaExceeded\.$/);
  // Several more evaluations (1 s apart) after the reason change: still the one firing alert.
  const reasonChangedAt = Date.now();
  const later: string[] = [];
  while (Date.now() - reasonChangedAt < 4_000) {
    const alerts = (await prometheus.alerts()).filter(
      (a) => a.labels.alertname === "CustomResourceNotReady" && a.labels.name === "w1",
    );
    later.push(alerts.map((a) => `${a.labels.reason}:${a.state}@${a.activeAt}`).join(",") || "none");
    await sleep(250);
  }
  assert.deepEqual(
    [...new Set(later)],
    [`QuotaExceeded:firing@${changed.activeAt}`],
    "one alert, the new reason's",
  );

  await patchStatus(rest, ref, { conditions: [condition("Ready", "True", "Ok", "", 1)] });
  await prometheus.waitFor(
    "CustomResourceNotReady to resolve",
    async () =>
      (await prometheus.alerts()).some(
        (a) => a.labels.alertname === "CustomResourceNotReady" && a.labels.name === "w1",
      )
        ? undefined
        : true,
    30_000,
  );
});

/** The alert `alertname` of the object `name`, if pending or firing. */
async function alertOf(alertname: string, name: string): Promise<PromAlert | undefined> {
  return (await prometheus.alerts()).find((a) => a.labels.alertname === alertname && a.labels.name === name);
}

/** Waits for the alert to fire, recording the states it went through. */
async function firing(alertname: string, name: string): Promise<{ alert: PromAlert; seen: string[] }> {
  const seen: string[] = [];
  const alert = await prometheus.waitFor(
    `${alertname} of ${name} to fire`,
    async () => {
      const alert = await alertOf(alertname, name);
      if (alert && seen.at(-1) !== alert.state) seen.push(alert.state);
      return alert?.state === "firing" ? alert : undefined;
    },
    60_000,
  );
  return { alert, seen };
}

async function resolved(alertname: string, name: string): Promise<void> {
  await prometheus.waitFor(
    `${alertname} of ${name} to resolve`,
    async () => ((await alertOf(alertname, name)) ? undefined : true),
    30_000,
  );
}

/** An RFC 3339 time with whole seconds, as Kubernetes writes them. */
const stamp = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;

test("a widget whose heartbeat stops fires CustomResourceHeartbeatStale; a fresh heartbeat resolves it", async () => {
  const rest = testbed.plane.admin.rest;
  const ref = refFor("widgets", ns, "hb");
  await createCr(rest, ref, "hb", { size: 1 });
  await patchStatus(rest, ref, {
    observedGeneration: 1,
    lastHeartbeatTime: stamp(Date.now()),
    conditions: [condition("Ready", "True", "Ok", "", 1)],
  });
  await prometheus.waitFor("the heartbeat to be scraped", async () =>
    (await prometheus.query(`cr_heartbeat_timestamp_seconds{job="${JOB}", name="hb"}`)).length === 1
      ? true
      : undefined,
  );
  assert.equal(
    await alertOf("CustomResourceHeartbeatStale", "hb"),
    undefined,
    "a fresh heartbeat does not fire",
  );
  // The controller stopped ten minutes ago (the threshold is two minutes in the values).
  await patchStatus(rest, ref, { lastHeartbeatTime: stamp(Date.now() - 10 * 60_000) });
  const { alert, seen } = await firing("CustomResourceHeartbeatStale", "hb");
  assert.deepEqual(seen, ["pending", "firing"]);
  assert.equal(alert.labels.kind, "Widget");
  assert.equal(alert.labels.namespace, ns);
  assert.equal(alert.labels.team, "platform");
  assert.match(
    alert.annotations.description ?? "",
    /^Widget mon-\S+\/hb \(example\.com\) last wrote its heartbeat 10m \d+s ago;/,
  );
  await patchStatus(rest, ref, { lastHeartbeatTime: stamp(Date.now()) });
  await resolved("CustomResourceHeartbeatStale", "hb");
});

test("a gizmo whose Ready condition lags its spec fires CustomResourceConditionStale; catching up resolves it", async () => {
  const rest = testbed.plane.admin.rest;
  const ref = refFor("gizmos", ns, "z1");
  await createCr(rest, ref, "z1", { size: 1 });
  await patchStatus(rest, ref, {
    observedGeneration: 1,
    conditions: [condition("Ready", "True", "Ok", "", 1)],
  });
  await prometheus.waitFor("the current condition to be scraped", async () =>
    (await prometheus.query(`cr_condition_stale{job="${JOB}", name="z1", type="Ready"} == 0`)).length === 1
      ? true
      : undefined,
  );
  assert.equal(
    await alertOf("CustomResourceConditionStale", "z1"),
    undefined,
    "a current condition does not fire",
  );
  // A spec change (generation 2) the controller has not evaluated Ready against yet.
  await changeSpec(rest, ref, { size: 2 });
  const { alert, seen } = await firing("CustomResourceConditionStale", "z1");
  assert.deepEqual(seen, ["pending", "firing"]);
  assert.deepEqual(
    [alert.labels.kind, alert.labels.namespace, alert.labels.type, alert.labels.severity],
    ["Gizmo", ns, "Ready", "warning"],
  );
  await patchStatus(rest, ref, {
    observedGeneration: 2,
    conditions: [condition("Ready", "True", "Ok", "", 2)],
  });
  await resolved("CustomResourceConditionStale", "z1");
});

test("with the default set, every dashboard panel query returns data, and opt-in panels show their note", async () => {
  const rest = testbed.plane.admin.rest;
  // A rollout with history: time to ready, state durations, a reconcile, an illegal phase move.
  const ref = refFor("widgets", ns, "w2");
  await createCr(rest, ref, "w2", { size: 1 });
  await patchStatus(rest, ref, {
    observedGeneration: 1,
    phase: "Pending",
    lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    conditions: [condition("Ready", "False", "Provisioning", "", 1)],
  });
  // Condition times are whole seconds: the next write must land in a later second to be a transition with a duration.
  const firstWriteSecond = Math.floor(Date.now() / 1000);
  await prometheus.waitFor("a new wall-clock second", async () =>
    Math.floor(Date.now() / 1000) > firstWriteSecond ? true : undefined,
  );
  await patchStatus(rest, ref, { phase: "Running", conditions: [condition("Ready", "True", "Ok", "", 1)] });
  await changeSpec(rest, ref, { size: 2 });
  // Until the controller catches up, the object is behind its generation: wait until the recording rule has seen it.
  await prometheus.waitFor("the generation lag to be recorded", async () =>
    (
      await prometheus.query(
        `namespace_group_kind:cr_generation_lag:count_nonzero{job="${JOB}", namespace="${ns}"} > 0`,
      )
    ).length > 0
      ? true
      : undefined,
  );
  await patchStatus(rest, ref, {
    observedGeneration: 2,
    conditions: [condition("Ready", "True", "Ok", "", 2)],
  });
  // The operator's writes through the proxy: a success, a conflict, a no-op.
  const statusPath = `/apis/example.com/v1/namespaces/${ns}/widgets/w2/status`;
  assert.equal(
    await throughProxy(statusPath, "PATCH", { status: { replicas: 1 } }, "application/merge-patch+json"),
    200,
  );
  const stale = await getCr(rest, ref);
  await patchStatus(rest, ref, { replicas: 2 });
  assert.equal(await throughProxy(statusPath, "PUT", stale, "application/json"), 409);
  // An object that stays not Ready (w1 was made Ready again by the alert test).
  const stuck = refFor("widgets", ns, "w3");
  await createCr(rest, stuck, "w3", { size: 1 });
  await patchStatus(rest, stuck, {
    observedGeneration: 1,
    conditions: [condition("Ready", "False", "ImagePullBackOff", "cannot pull", 1)],
  });
  // Gadgets over the series cap.
  for (const name of ["g1", "g2", "g3"]) {
    const gadget = refFor("gadgets", undefined, `${ns}-${name}`);
    await createCr(rest, gadget, `${ns}-${name}`);
    await patchStatus(rest, gadget, { conditions: [condition("Ready", "True")] });
  }
  // Prometheus needs a few scrapes of all of it (rates need two points): poll until every
  // default-set panel has data, and fail naming the panels still empty.
  const queries = panelQueries({ rateInterval: "10s" });
  let empty: string[] = [];
  let notes: string[] = [];
  const panelsRead = async (): Promise<true | undefined> => {
    const now = Date.now() / 1000;
    empty = [];
    notes = [];
    for (const q of queries) {
      const result = q.instant
        ? await prometheus.query(q.query)
        : await prometheus.queryRange(q.query, now - 60, now, 2);
      const where = `${q.dashboard} / ${q.panel} / ${q.refId}`;
      if (q.optIn.length > 0) {
        // Not exported with the default set: Grafana shows the panel's note (noValue) in place of "No data".
        assert.deepEqual(
          result,
          [],
          `${where} reads ${q.optIn.join(", ")}, which the default set does not export`,
        );
        assert.ok(
          q.optIn.every((family) => q.noValue?.includes(family)),
          `${where}: note ${q.noValue}`,
        );
        notes.push(where);
      } else if (result.length === 0) empty.push(`${where}: ${q.query}`);
    }
    return empty.length === 0 ? true : undefined;
  };
  await prometheus
    .waitFor("every default-set panel query to return data", panelsRead, 90_000)
    .catch((error: Error) => {
      // On a timeout the assertion below names the panels still without data; anything else is a failure here.
      if (!error.message.startsWith("timed out")) throw error;
    });
  console.error(
    `# ${queries.length - empty.length - notes.length} of ${queries.length} panel queries returned data; ` +
      `${notes.length} opt-in panels show their note (${notes.join("; ")})`,
  );
  assert.ok(notes.length >= 2 && notes.length < 5, `opt-in note panels: ${notes.join("; ")}`);
  assert.deepEqual(empty, [], "panel queries without data");

  // The not-Ready table: one row per object whose Ready is False, with its reason.
  const table = queries.find((q) => q.panel === "Objects not Ready");
  assert.ok(table);
  const names = (samples: { metric: Readonly<Record<string, string>> }[]) =>
    samples.map((r) => `${r.metric.kind} ${r.metric.namespace ?? ""}/${r.metric.name}`).sort();
  const rows = await prometheus.waitFor("the table to list each not-Ready object once", async () => {
    const [rows, notReady] = await Promise.all([
      prometheus.query(table.query),
      prometheus.query(
        `max by (kind, namespace, name) (cr_condition{job="${JOB}", type="Ready", status="False"})`,
      ),
    ]);
    return rows.length > 0 && JSON.stringify(names(rows)) === JSON.stringify(names(notReady))
      ? rows
      : undefined;
  });
  assert.equal(rows.find((r) => r.metric.name === "w3")?.metric.reason, "ImagePullBackOff");
});
