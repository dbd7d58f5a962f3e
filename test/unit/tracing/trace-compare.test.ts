// The span-for-span comparison of two Jaeger traces (test/jaeger/compare.ts)
// that the join e2e test holds three shards against one process with: what it
// pairs, what it names as differing, and what it leaves out (this process's clock).
import assert from "node:assert/strict";
import { test } from "node:test";
import { alike, diffTraces, renderDiff } from "../../jaeger/compare.ts";
import type { JaegerSpan, JaegerTrace } from "../../jaeger/index.ts";

const traceId = "0af7651916cd43dd8448eb211c80319c";

function span(
  spanID: string,
  operationName: string,
  tags: Record<string, unknown>,
  parent?: string,
  at = 1_000_000,
): JaegerSpan {
  return {
    traceID: traceId,
    spanID,
    operationName,
    references: parent ? [{ refType: "CHILD_OF", traceID: traceId, spanID: parent }] : [],
    startTime: at,
    duration: 2_000_000,
    tags: Object.entries(tags).map(([key, value]) => ({ key, type: typeof value, value })),
    processID: "p1",
  };
}

const root = () =>
  span("aaaaaaaaaaaaaaaa", "Machine generation", {
    "k8s.object.name": "m-a",
    "cr_status.start_source": "creation_timestamp",
    "cr_status.end_source": "condition",
  });
const phase = (id: string, at: number) =>
  span(
    id,
    "phase Provisioning",
    {
      "cr_status.phase": "Provisioning",
      "cr_status.start_source": "observed",
      "cr_status.end_source": "observed",
    },
    "aaaaaaaaaaaaaaaa",
    at,
  );
const trace = (spans: JaegerSpan[], process = "shard 0"): JaegerTrace => ({
  traceID: traceId,
  spans,
  processes: { p1: { serviceName: "x", tags: [{ key: "cr_status.test.shard", value: process }] } },
});

test("the same spans are alike; process tags and clock-keyed phase ids and times are not compared", () => {
  const d = diffTraces(
    trace([root(), phase("1111111111111111", 1_500_000)]),
    trace([root(), phase("2222222222222222", 1_501_000)], "one process"),
  );
  assert.ok(alike(d), renderDiff(d, "left", "right"));
  assert.equal(d.paired, 2);
  assert.equal(d.clockDerived.length, 1);
  assert.match(
    d.clockDerived[0] as string,
    /^phase Provisioning: span id 1111111111111111 \/ 2222222222222222, start/,
  );
});

test("a span on one side only, and a field apart, are named", () => {
  const moved = root();
  moved.duration += 1_000_000;
  moved.references.push({ refType: "FOLLOWS_FROM", traceID: traceId, spanID: "cccccccccccccccc" });
  const d = diffTraces(
    trace([root(), span("bbbbbbbbbbbbbbbb", "condition Ready", {}, "aaaaaaaaaaaaaaaa")]),
    trace([moved]),
  );
  assert.ok(!alike(d));
  assert.equal(
    renderDiff(d, "three shards", "one process"),
    [
      "1 spans paired",
      "only in three shards: condition Ready [bbbbbbbbbbbbbbbb]",
      "Machine generation m-a [aaaaaaaaaaaaaaaa] differs:",
      `  FOLLOWS_FROM: three shards (none), one process ${traceId}/cccccccccccccccc`,
      "  end: three shards 1970-01-01T00:00:03.000000Z, one process 1970-01-01T00:00:04.000000Z",
    ].join("\n"),
  );
});

test("a phase span that differs in more than its clock is not paired", () => {
  const other = phase("2222222222222222", 1_500_000);
  other.tags.push({ key: "cr_status.next_phase", type: "string", value: "Running" });
  const d = diffTraces(trace([root(), phase("1111111111111111", 1_500_000)]), trace([root(), other]));
  assert.deepEqual(
    [d.onlyLeft.map((s) => s.spanID), d.onlyRight.map((s) => s.spanID)],
    [["1111111111111111"], ["2222222222222222"]],
  );
});

test("an attribute apart, or a trace missing, is named", () => {
  const relabelled = root();
  relabelled.tags.push({ key: "cr_status.parent", type: "string", value: "owner" });
  const d = diffTraces(trace([root()]), trace([relabelled]));
  assert.deepEqual(d.differing, [
    {
      span: "Machine generation m-a [aaaaaaaaaaaaaaaa]",
      fields: [{ name: "attribute cr_status.parent", left: "(absent)", right: '"owner"' }],
    },
  ]);
  const missing = diffTraces(trace([root()]), undefined);
  assert.equal(missing.onlyLeft.length, 1);
  assert.equal(missing.paired, 0);
});
