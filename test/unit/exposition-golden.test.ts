// Golden exposition: a fixed set of objects through the whole pipeline (raw
// object → projection → pre-rendered series → writer). UPDATE_GOLDEN=1
// rewrites the files; review the diff before committing.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { cond, widget } from "../support/objects.ts";
import { promtoolCheckMetrics } from "../support/promtool.ts";

const golden = (name: string) => new URL(`../golden/${name}`, import.meta.url);

function compare(name: string, actual: string): void {
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(golden(name), actual);
  assert.equal(actual, readFileSync(golden(name), "utf8"), `${name} differs; UPDATE_GOLDEN=1 regenerates it`);
}

function fleet() {
  const c = offlineCollector({
    phases: ["Pending", "Running", "Failed"],
    projection: {
      heartbeatPath: ["status", "lastHeartbeatTime"],
      extraLabels: [{ key: "app", name: "app", from: "label" }],
    },
    extraLabelNames: ["app"],
  });
  const spec = [
    { manager: "kubectl", operation: "Update", time: "2026-01-01T00:50:00Z", fieldsV1: { "f:spec": {} } },
  ];
  c.collector.ingest(
    "ADDED",
    widget({
      name: "ready",
      labels: { app: "shop" },
      resourceVersion: "10",
      status: {
        observedGeneration: 1,
        phase: "Running",
        lastHeartbeatTime: "2026-01-01T00:59:30Z",
        conditions: [
          cond("Ready", "True", "2026-01-01T00:02:00Z", { reason: "Reconciled", observedGeneration: 1 }),
          cond("Degraded", "False", "2026-01-01T00:02:00Z", { reason: "AsExpected" }),
        ],
      },
    }),
  );
  c.collector.ingest(
    "ADDED",
    widget({
      name: "lagging",
      namespace: "ns2",
      generation: 3,
      managedFields: spec,
      resourceVersion: "20",
      status: {
        observedGeneration: 2,
        phase: "Pending",
        conditions: [
          cond("Ready", "False", "2026-01-01T00:58:00Z", {
            reason: "Waiting",
            observedGeneration: 2,
            message: 'quote " and\nnewline',
          }),
        ],
      },
    }),
  );
  c.collector.ingest("ADDED", widget({ name: "bare", namespace: "ns3", resourceVersion: "30" }));
  c.collector.ingest(
    "ADDED",
    widget({
      name: "going",
      deletionTimestamp: "2026-01-01T00:55:00Z",
      resourceVersion: "40",
      status: { phase: "Failed" },
    }),
  );
  // Label values that must be escaped, and non-ASCII text (written as UTF-8).
  c.collector.ingest(
    "ADDED",
    widget({
      name: "odd",
      namespace: "ns4",
      labels: { app: 'quote " back \\ newline \n ünïcode ✓' },
      resourceVersion: "50",
      status: {
        phase: "Running",
        conditions: [cond('Sync"ed', "True", "2026-01-01T00:03:00Z", { reason: "Grün" })],
      },
    }),
  );
  // The controller restamps its heartbeat only: a no-op status write; then it
  // rewrites a message (progress text): a status update.
  const ready = (resourceVersion: string, heartbeat: string, message: string) =>
    widget({
      name: "ready",
      labels: { app: "shop" },
      resourceVersion,
      status: {
        observedGeneration: 1,
        phase: "Running",
        lastHeartbeatTime: heartbeat,
        conditions: [
          cond("Ready", "True", "2026-01-01T00:02:00Z", {
            reason: "Reconciled",
            observedGeneration: 1,
            message,
          }),
          cond("Degraded", "False", "2026-01-01T00:02:00Z", { reason: "AsExpected" }),
        ],
      },
    });
  c.collector.ingest("MODIFIED", ready("11", "2026-01-01T00:59:40Z", ""));
  c.collector.ingest("MODIFIED", ready("12", "2026-01-01T00:59:50Z", "checked again"));
  return c;
}

test("golden: Prometheus text format", async () => {
  const text = await perObjectText(fleet());
  compare("widgets.prom", text);
  await promtoolCheckMetrics(text);
});

test("golden: OpenMetrics format", async () => {
  compare("widgets.openmetrics", await perObjectText(fleet(), true));
});
