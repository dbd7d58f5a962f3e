// The points of an export against /metrics: every per-object line is one
// point with an equal value and its labels as attributes (renamed where a
// semantic convention exists), read in bounded batches; counters start when
// their series appeared; histograms keep their buckets.
import assert from "node:assert/strict";
import { test } from "node:test";
import { objectFamilies } from "../../../src/core/series/catalog.ts";
import { byteString } from "../../../src/core/series/exposition.ts";
import { readLabels } from "../../../src/otlp-metrics/points.ts";
import { offlineCollector, perObjectText } from "../../support/collector.ts";
import { parseExposition } from "../../support/exposition-check.ts";
import { type SentExport, sentExport } from "./support.ts";

function widget(
  name: string,
  over: { namespace?: string; created?: string; status?: object; labels?: object } = {},
) {
  return {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: {
      name,
      namespace: over.namespace ?? "shop",
      uid: `uid-${name}`,
      generation: 2,
      resourceVersion: "1",
      creationTimestamp: over.created ?? "2026-01-01T00:00:00Z",
      labels: over.labels ?? { cluster: "eu-1" },
    },
    status: over.status ?? {
      observedGeneration: 1,
      phase: "Running",
      conditions: [
        {
          type: "Ready",
          status: "False",
          reason: 'Bad"Quote\\n',
          lastTransitionTime: "2026-01-01T00:10:00Z",
        },
        { type: "Synced", status: "True", reason: "Fine", lastTransitionTime: "2026-01-01T00:11:00Z" },
      ],
    },
  };
}

function fleet(objects = 3) {
  const c = offlineCollector({
    phases: ["Running"],
    projection: { extraLabels: [{ key: "cluster", name: "cluster", from: "label" }] },
    extraLabelNames: ["cluster"],
    metrics: {
      optIn: ["cr_condition_transitions_total", "cr_spec_generation_changes_total", "cr_condition_stale"],
    },
  });
  for (let i = 0; i < objects; i++) c.collector.ingest("ADDED", widget(`w${i}`));
  // A UTF-8 name, an object created after the process started, a cluster label left unset.
  c.collector.ingest("ADDED", widget("wé", { created: "2026-01-01T01:00:00Z", labels: {} }));
  return c;
}

/** /metrics' per-object series in the attribute names the export uses. */
function expectedPoints(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [series, value] of parseExposition(text).samples) {
    const match = /^([a-z_]+)\{(.*)\}$/.exec(series);
    if (!match) continue;
    const attrs: Record<string, string> = {};
    // perObjectText() decoded the byte strings; readLabels reads them as stored.
    readLabels(byteString(`{${match[2]}`), 0, attrs);
    out.set(pointKey(match[1] as string, attrs), value);
  }
  return out;
}

function pointKey(name: string, attributes: Record<string, string>): string {
  return `${name}${JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
}

function sentPoints(sent: SentExport, names: ReadonlySet<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const metric of sent.metrics.values()) {
    if (!names.has(metric.name)) continue;
    for (const p of metric.points) out.set(pointKey(metric.name, p.attributes), p.value as number);
  }
  return out;
}

const objectNames = new Set(objectFamilies.map((f) => `cr_${f.suffix}`));

test("every per-object line of /metrics is one point with an equal value and its labels as attributes", async () => {
  const c = fleet();
  const text = await perObjectText(c);
  const expected = expectedPoints(text);
  const sent = await sentExport(c.collector.sources, c.metrics.registry);
  assert.deepEqual(sentPoints(sent, objectNames), expected);
  assert.ok(expected.size > 60, `${expected.size} points`);
  const ready = sent.metrics.get("cr_condition_reason")?.points.find((p) => p.attributes.type === "Ready");
  assert.deepEqual(ready?.attributes, {
    group: "example.com",
    kind: "Widget",
    "k8s.namespace.name": "shop",
    name: "w0",
    "k8s.cluster.name": "eu-1",
    type: "Ready",
    reason: 'Bad"Quote\\n',
  });
  // An empty label (the unset cluster) is no attribute; UTF-8 survives the byte strings.
  const utf8 = sent.metrics.get("cr_status")?.points.find((p) => p.attributes.name === "wé");
  assert.ok(utf8, "the UTF-8 name");
  assert.equal("k8s.cluster.name" in utf8.attributes, false);
});

test("types, temporality, units and start times: gauges unstarted, counters from the process start or the object's creation", async () => {
  const c = fleet(1);
  const sent = await sentExport(c.collector.sources, c.metrics.registry);
  const condition = sent.metrics.get("cr_condition");
  assert.equal(condition?.kind, "gauge");
  assert.equal(condition?.unit, "");
  assert.equal(condition?.points[0]?.startTimeUnixNano, undefined);
  assert.equal(condition?.points[0]?.timeUnixNano, String(Date.parse("2026-01-01T02:00:00Z") * 1e6));
  assert.equal(sent.metrics.get("cr_condition_last_transition_timestamp_seconds")?.unit, "s");
  const updates = sent.metrics.get("cr_status_updates_total");
  assert.deepEqual([updates?.kind, updates?.temporality, updates?.monotonic], ["sum", 2, true]);
  const start = (name: string) => updates?.points.find((p) => p.attributes.name === name)?.startTimeUnixNano;
  // The process started at 00:30; w0 existed before, wé was created at 01:00.
  assert.equal(start("w0"), String(Date.parse("2026-01-01T00:30:00Z") * 1e6));
  assert.equal(start("wé"), String(Date.parse("2026-01-01T01:00:00Z") * 1e6));
  assert.deepEqual(sent.resource, { "service.name": "cr-status-exporter" });
});

test("registry histograms become OTLP histograms with each bucket's own count", async () => {
  const c = fleet(1);
  const h = c.metrics.kinds.timeToReady;
  for (const v of [3, 3, 100, 100000]) h.observe({ group: "example.com", kind: "Widget" }, v);
  c.metrics.scrapeDuration.observe(0.02);
  const sent = await sentExport(c.collector.sources, c.metrics.registry);
  const metric = sent.metrics.get("cr_time_to_ready_seconds");
  assert.deepEqual([metric?.kind, metric?.unit, metric?.temporality], ["histogram", "s", 2]);
  const point = metric?.points[0];
  assert.deepEqual(point?.attributes, { group: "example.com", kind: "Widget" });
  assert.deepEqual(point?.explicitBounds, [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400]);
  assert.deepEqual(point?.bucketCounts, [0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual([point?.count, point?.sum], [4, 100106]);
  assert.equal(point?.startTimeUnixNano, String(Date.parse("2026-01-01T00:30:00Z") * 1e6));
  assert.equal(sent.metrics.get("cr_exporter_scrape_duration_seconds")?.points[0]?.count, 1);
  // A counter of the registry keeps its _total and starts with the process.
  assert.equal(sent.metrics.get("cr_exporter_handler_errors_total")?.kind, "sum");
});

test("the family selection applies: a denied family is not sent, an opted-in one is", async () => {
  const c = offlineCollector({ metrics: { deny: ["cr_condition_reason"], optIn: ["cr_condition_stale"] } });
  c.collector.ingest("ADDED", widget("w"));
  const sent = await sentExport(c.collector.sources, c.metrics.registry);
  assert.equal(sent.metrics.has("cr_condition_reason"), false);
  assert.equal(sent.metrics.has("cr_condition"), true);
  assert.equal(sent.metrics.has("cr_condition_transitions_total"), false);
});

test("requests of about batchBytes of per-object points; the aggregate and registry families come last", async () => {
  const c = fleet(50);
  const whole = await sentExport(c.collector.sources, c.metrics.registry);
  const sliced = await sentExport(c.collector.sources, c.metrics.registry, { batchBytes: 16 * 1024 });
  // Every family in both but the process's own (a GC or a handle between two exports adds points and families).
  const ours = (s: SentExport) => [...s.metrics.keys()].filter((n) => !/^(nodejs|process)_/.test(n)).sort();
  assert.deepEqual(ours(sliced), ours(whole));
  assert.ok(sliced.requests > 5, `${sliced.requests} requests`);
  // An object's points are never split: a request ends after the object that passed the limit.
  for (const bytes of sliced.bytes.slice(0, -1))
    assert.ok(bytes >= 16 * 1024 && bytes < 16 * 1024 + 16 * 1024, `request of ${bytes} bytes`);
  assert.deepEqual(sentPoints(sliced, objectNames), sentPoints(whole, objectNames));
});

test("aggregate mode: the per-namespace counts are sent with k8s.namespace.name", async () => {
  const c = offlineCollector({ mode: "aggregate" });
  c.collector.ingest("ADDED", widget("a"));
  c.collector.ingest("ADDED", widget("b", { namespace: "other" }));
  const sent = await sentExport(c.collector.sources, c.metrics.registry);
  const objects = sent.metrics.get("cr_aggregate_objects");
  assert.equal(objects?.kind, "gauge");
  assert.deepEqual(objects?.points.map((p) => [p.attributes["k8s.namespace.name"], p.value]).sort(), [
    ["other", 1],
    ["shop", 1],
  ]);
  assert.equal(sent.metrics.has("cr_condition"), false);
});

test("readLabels unescapes values and stops at the first character that starts no label", () => {
  const into: Record<string, string> = {};
  const end = readLabels(',a="x\\"y\\\\z\\n",namespace="ns",e=""} 4', 0, into);
  assert.deepEqual(into, { a: 'x"y\\z\n', "k8s.namespace.name": "ns" });
  assert.equal(',a="x\\"y\\\\z\\n",namespace="ns",e=""} 4'[end], "}");
});
