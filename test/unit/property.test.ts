// Arbitrary JSON where status should be never throws and always yields valid
// exposition: conditions that are not a list, missing or duplicate types,
// non-string statuses, hostile strings, negative or absent generations.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { parseExposition } from "../support/exposition-check.ts";
import { promtoolCheckMetrics } from "../support/promtool.ts";

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 50 }),
  fc.constantFrom('"', "\\", "\n", 'a"b\\c\nd', "ü🙂", "x".repeat(5000), ""),
);
const anything = fc.anything({ maxDepth: 3, withBigInt: false });
const condition = fc.oneof(
  fc.record(
    {
      type: fc.oneof(hostileString, fc.constantFrom("Ready", "Available", "Degraded"), anything),
      status: fc.oneof(fc.constantFrom("True", "False", "Unknown", "true", "maybe"), anything),
      reason: fc.oneof(hostileString, anything),
      message: fc.oneof(hostileString, anything),
      lastTransitionTime: fc.oneof(fc.constantFrom("2026-01-01T00:00:00Z", "not a time", ""), anything),
      observedGeneration: fc.oneof(fc.integer({ min: -5, max: 5 }), anything),
    },
    { requiredKeys: [] },
  ),
  anything,
);
const status = fc.oneof(
  fc.record(
    {
      conditions: fc.oneof(fc.array(condition, { maxLength: 6 }), anything),
      observedGeneration: fc.oneof(fc.integer({ min: -3, max: 10 }), anything),
      phase: fc.oneof(hostileString, anything),
      lastHeartbeatTime: fc.oneof(fc.constant("2026-01-01T00:30:00Z"), anything),
    },
    { requiredKeys: [] },
  ),
  anything,
);
const object = fc.record({
  metadata: fc.record(
    {
      name: fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,20}$/), hostileString),
      namespace: fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,10}$/), anything),
      uid: fc.uuid(),
      resourceVersion: fc.nat().map(String),
      generation: fc.oneof(fc.integer({ min: -2, max: 10 }), anything),
      labels: fc.oneof(fc.dictionary(fc.string(), hostileString), anything),
      managedFields: fc.oneof(fc.constant([]), anything),
    },
    { requiredKeys: ["uid", "name"] },
  ),
  status,
});

test("arbitrary status never throws and always yields valid exposition", async () => {
  const outputs: string[] = [];
  await fc.assert(
    fc.asyncProperty(fc.array(object, { minLength: 1, maxLength: 8 }), async (objects) => {
      const c = offlineCollector({
        metrics: { allow: ["cr_*"] },
        projection: {
          heartbeatPath: ["status", "lastHeartbeatTime"],
          extraLabels: [{ key: "team", name: "team", from: "label" }],
        },
        extraLabelNames: ["team"],
      });
      // An object lacks identity only when its name is empty: each of its two events is counted, nothing else.
      let withoutIdentity = 0;
      for (const raw of objects) {
        c.collector.ingest("ADDED", raw);
        c.collector.ingest("MODIFIED", { ...raw, metadata: { ...raw.metadata, resourceVersion: "x" } });
        if (raw.metadata.name === "") withoutIdentity += 2;
      }
      const errors = (await c.metrics.handlerErrors.get()).values[0]?.value ?? 0;
      assert.equal(errors, withoutIdentity, "handler errors only for objects without identity");
      const text = await perObjectText(c);
      parseExposition(text);
      if (outputs.length < 20) outputs.push(text);
    }),
    { numRuns: 300 },
  );
  // promtool is the reference parser: run it over a sample of the outputs.
  for (const text of outputs) promtoolCheckMetrics(text);
  assert.ok(outputs.length > 0);
});

test("non-objects and objects without identity are skipped and counted", async () => {
  const c = offlineCollector();
  for (const raw of [null, 42, "x", [], {}, { metadata: { name: "n" } }, { metadata: { uid: "u" } }]) {
    c.collector.ingest("ADDED", raw);
  }
  assert.equal(c.collector.store.size, 0);
  const errors = await c.metrics.handlerErrors.get();
  assert.equal(errors.values[0]?.value, 7);
});
