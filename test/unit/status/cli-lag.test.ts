// The LAG column of `status`: generations behind, and how long the current
// generation has waited whenever its request time is known — "0s" too, so a
// spec changed this very second does not look like one with an unknown wait.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatItems } from "../../../src/cli/status-output.ts";
import type { ObjectItemJson } from "../../../src/status/json.ts";

const item = (over: Partial<ObjectItemJson>): ObjectItemJson => ({
  uid: "u1",
  group: "example.com",
  version: "v1",
  kind: "Widget",
  namespace: "ns",
  name: "w1",
  result: "InProgress",
  notReady: false,
  ready: null,
  since: null,
  sinceSeconds: null,
  phase: null,
  generation: 2,
  observedGeneration: 1,
  generationLag: 1,
  lagging: true,
  lagSeconds: 0,
  generationRequestedAt: null,
  createdAt: null,
  ageSeconds: null,
  terminatingSince: null,
  transitionsInWindow: 0,
  flapping: false,
  warning: null,
  links: { self: "/api/v1/objects/u1", dashboard: null, trace: null },
  ...over,
});

const lagColumn = (over: Partial<ObjectItemJson>): string | undefined => {
  const [header, row] = formatItems([item(over)], "table")
    .trimEnd()
    .split("\n");
  const start = header?.indexOf("LAG") ?? -1;
  assert.ok(start >= 0, header);
  return row
    ?.slice(start)
    .split(/\s{2,}/)[0]
    ?.trim();
};

test("status LAG: the wait when its start is known (0s included), only the generations when it is not", () => {
  const requestedAt = "2026-01-01T00:00:00Z";
  assert.equal(lagColumn({ generationRequestedAt: requestedAt, lagSeconds: 0 }), "1 (0s)");
  assert.equal(lagColumn({ generationRequestedAt: requestedAt, lagSeconds: 95 }), "1 (95s)");
  assert.equal(lagColumn({ generationRequestedAt: null }), "1");
  assert.equal(lagColumn({ lagging: false, generationLag: 0, generationRequestedAt: null }), "-");
});
