// docs/otlp-metrics.md's mapping table is the one mapping.ts makes, and what
// an export sends (type, temporality, monotonicity, unit, attribute names)
// is what the table says, for every family an export of a busy fixture sends.
import assert from "node:assert/strict";
import { test } from "node:test";
import { mappingRows, mappingTable, otlpKindOf, unitOf } from "../../../src/otlp-metrics/mapping.ts";
import { registerOtlpMetricsMetrics } from "../../../src/otlp-metrics/metrics.ts";
import { offlineCollector } from "../../support/collector.ts";
import { docTable } from "../../support/doc-tables.ts";
import { sentExport } from "./support.ts";

/** A Markdown table's rows, cell by cell, as docTable reads them. */
const rowsOf = (table: string): string[][] =>
  table
    .split("\n")
    .slice(2)
    .map((line) =>
      line
        .replace(/^\||\|$/g, "")
        .split("|")
        .map((c) => c.trim()),
    );

test("docs/otlp-metrics.md holds the mapping table mapping.ts makes (cell by cell)", () => {
  assert.deepEqual(docTable("docs/otlp-metrics.md", /^Family$/).rows, rowsOf(mappingTable()));
});

test("what an export sends is what the table says, family by family", async () => {
  const c = offlineCollector({
    projection: { extraLabels: [{ key: "cluster", name: "cluster", from: "label" }] },
    extraLabelNames: ["cluster"],
    metrics: { optIn: ["*"] },
    phaseTransitions: { Pending: ["Running"] },
    phases: ["Pending", "Running"],
  });
  registerOtlpMetricsMetrics(c.metrics.registry, "cr_").exports.inc({ result: "success" });
  const object = (rv: string, phase: string, status: string) => ({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: {
      name: "w",
      namespace: "shop",
      uid: "u",
      generation: 1,
      resourceVersion: rv,
      creationTimestamp: "2026-01-01T00:00:00Z",
      deletionTimestamp: rv === "3" ? "2026-01-01T00:59:00Z" : undefined,
      labels: { cluster: "eu-1" },
    },
    status: {
      observedGeneration: 1,
      phase,
      conditions: [
        {
          type: "Ready",
          status,
          reason: "R",
          lastTransitionTime: "2026-01-01T00:10:00Z",
          observedGeneration: 1,
        },
      ],
    },
  });
  c.collector.ingest("ADDED", object("1", "Running", "False"));
  c.collector.ingest("MODIFIED", object("2", "Pending", "True"));
  c.collector.ingest("MODIFIED", object("3", "Pending", "True"));
  const rows = new Map(mappingRows().map((r) => [r.name, r]));
  const sent = await sentExport(c.collector.sources, c.metrics.registry);
  let checked = 0;
  for (const metric of sent.metrics.values()) {
    const row = rows.get(metric.name);
    if (!row) {
      assert.match(metric.name, /^(process|nodejs)_/, `${metric.name} is sent but not in the table`);
      continue;
    }
    checked++;
    const kind = { gauge: "Gauge", sum: "Sum, cumulative, monotonic", histogram: "Histogram, cumulative" }[
      metric.kind
    ];
    assert.equal(kind, row.otlp, metric.name);
    if (metric.kind !== "gauge") assert.equal(metric.temporality, 2, `${metric.name} is cumulative`);
    if (metric.kind === "sum") assert.equal(metric.monotonic, true, `${metric.name} is monotonic`);
    assert.equal(metric.unit, row.unit, `${metric.name}'s unit`);
    const allowed = new Set(row.attributes.filter((a) => !a.startsWith("(")));
    if (row.attributes.includes("(extra labels)")) allowed.add("k8s.cluster.name");
    for (const point of metric.points) {
      for (const name of Object.keys(point.attributes)) {
        assert.ok(
          allowed.has(name),
          `${metric.name}: attribute ${name} is not in the table (${[...allowed]})`,
        );
      }
    }
  }
  assert.ok(checked >= 25, `${checked} families checked`);
  for (const must of [
    "cr_condition",
    "cr_deletion_timestamp_seconds",
    "cr_phase_illegal_transitions_total",
    "cr_exporter_otlp_metrics_exports_total",
  ]) {
    assert.ok(sent.metrics.has(must), `${must} sent`);
  }
});

test("the unit comes from the name's last word only: _seconds is s, _bytes is By, with or without _total", () => {
  assert.deepEqual(
    [
      "cr_age_seconds",
      "cr_wait_seconds_total",
      "cr_seconds_behind",
      "cr_size_bytes",
      "cr_read_bytes_total",
      "cr_bytes_seen",
      "cr_bytes_total_x",
      "cr_objects",
    ].map(unitOf),
    ["s", "s", "", "By", "By", "", "", ""],
  );
});

test("a gauge is a Gauge, a counter a Sum, a histogram a Histogram", () => {
  assert.deepEqual((["gauge", "counter", "histogram"] as const).map(otlpKindOf), [
    "Gauge",
    "Sum",
    "Histogram",
  ]);
});

test("the table starts with its header and separator rows", () => {
  assert.deepEqual(mappingTable().split("\n").slice(0, 2), [
    "| Family | Prometheus type | OTLP metric | Unit | Attributes |",
    "| --- | --- | --- | --- | --- |",
  ]);
});
