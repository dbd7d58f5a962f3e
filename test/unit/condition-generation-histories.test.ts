// Status histories written the way production controllers write them, for a
// kind whose status has no status.observedGeneration and whose conditions
// carry their own (cert-manager's Certificate): several status writes per
// generation, Issuing before Ready, Ready=False first, more writes once
// Ready=True, a flap, a second generation. Through one collector with the
// production tracer exporting into memory: one reconcile observation per
// generation that reached Ready=True, and every interval away from Ready
// inside a generation is one child span of that generation's trace.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import * as attr from "../../src/tracing/attributes.ts";
import { offlineCollector } from "../support/collector.ts";
import { widget } from "../support/objects.ts";
import { memoryTracing, type SpanView, T } from "./tracing/support.ts";

const iso = (seconds: number) => new Date((T + seconds) * 1000).toISOString().replace(".000Z", "Z");

/** A condition as the controller writes it: lastTransitionTime and the generation it has observed. */
interface Written {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  /** Seconds after T at which it entered this status. */
  since: number;
  generation: number;
}

interface Write {
  /** Seconds after T at which the exporter sees this version. */
  at: number;
  /** metadata.generation (a higher one than before: a spec change at `at`). */
  generation: number;
  conditions: Written[];
  /** Other status fields (notAfter, revision: what cert-manager adds once issued). */
  extra?: Record<string, unknown>;
}

const c = (
  type: string,
  status: Written["status"],
  reason: string,
  since: number,
  generation = 1,
): Written => ({ type, status, reason, since, generation });

/** The raw object of one write: the generation's spec change recorded in managedFields. */
function raw(write: Write, resourceVersion: number, specChanges: number[]): Record<string, unknown> {
  return widget({
    resourceVersion: String(resourceVersion),
    generation: write.generation,
    creationTimestamp: iso(0),
    spec: { size: write.generation },
    managedFields: specChanges.map((at) => ({
      manager: "kubectl",
      operation: "Update",
      time: iso(at),
      fieldsV1: { "f:spec": {} },
    })),
    status: {
      ...write.extra,
      conditions: write.conditions.map((w) => ({
        type: w.type,
        status: w.status,
        reason: w.reason,
        message: "",
        lastTransitionTime: iso(w.since),
        observedGeneration: w.generation,
      })),
    },
  });
}

interface Replayed {
  /** cr_reconcile_duration_seconds: count and sum. */
  count: number;
  sum: number;
  spans: SpanView[];
}

/**
 * The object created at T (no status), then each write; the spans ended by
 * then (`deleted`: and the object deleted after the last write, which ends
 * whatever is open).
 */
async function replay(writes: readonly Write[], deleted = false): Promise<Replayed> {
  const tracing = memoryTracing();
  const collector = offlineCollector({
    generationSource: "condition",
    tracer: tracing.tracer.tracer,
    now: T,
  });
  let resourceVersion = 1;
  const specChanges: number[] = [];
  collector.collector.ingest("ADDED", raw({ at: 0, generation: 1, conditions: [] }, resourceVersion, []));
  for (const write of writes) {
    // A write of a newer generation is its spec change (one managedFields entry per generation after the first).
    while (specChanges.length < write.generation - 1) specChanges.push(write.at);
    collector.clock.now = T + write.at;
    collector.collector.ingest("MODIFIED", raw(write, ++resourceVersion, specChanges));
  }
  const last = writes.at(-1);
  if (deleted && last) collector.collector.ingest("DELETED", raw(last, ++resourceVersion, specChanges));
  const values = (await collector.metrics.kinds.reconcileDuration.get()).values;
  const count = values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0;
  const sum = values.find((v) => v.metricName?.endsWith("_sum"))?.value ?? 0;
  return { count, sum, spans: await tracing.take() };
}

/** Per trace: "root outcome: child, child" with each child's status and its span's start and end (seconds after T). */
function traces(spans: readonly SpanView[]): string[] {
  const roots = spans.filter((s) => s.parentSpanId === undefined);
  return roots.map((root) => {
    const children = spans
      .filter((s) => s.parentSpanId === root.spanId && s.traceId === root.traceId)
      .map(
        (s) =>
          `${s.name}=${String(s.attributes[attr.CONDITION_STATUS])} ${(s.startMs / 1000 - T).toString()}-${(s.endMs / 1000 - T).toString()}`,
      );
    const generation = root.attributes[attr.K8S_OBJECT_GENERATION];
    const name = generation === undefined ? root.name : `${root.name} ${String(generation)}`;
    return `${name} ${String(root.attributes[attr.OUTCOME])}: ${children.join(", ")}`;
  });
}

const ready = (since: number, generation = 1) => c("Ready", "True", "Ready", since, generation);
const issued = { notAfter: iso(90 * 86400), revision: 1 };

const cases: { name: string; writes: Write[]; count: number; sum: number; traces: string[] }[] = [
  {
    name: "Ready=False DoesNotExist first, then Issuing, then Ready=True, then more writes",
    writes: [
      { at: 1, generation: 1, conditions: [c("Ready", "False", "DoesNotExist", 1)] },
      {
        at: 2,
        generation: 1,
        conditions: [c("Ready", "False", "DoesNotExist", 1), c("Issuing", "True", "DoesNotExist", 2)],
      },
      { at: 5, generation: 1, conditions: [ready(5), c("Issuing", "True", "DoesNotExist", 2)] },
      { at: 6, generation: 1, conditions: [ready(5)], extra: issued },
      { at: 7, generation: 1, conditions: [ready(5)], extra: { ...issued, renewalTime: iso(60 * 86400) } },
    ],
    count: 1,
    sum: 5,
    traces: ["Widget generation 1 ready: condition Ready=False 1-5"],
  },
  {
    name: "Issuing before Ready: the first write, without the readiness condition, reconciles nothing",
    writes: [
      { at: 1, generation: 1, conditions: [c("Issuing", "True", "DoesNotExist", 1)] },
      {
        at: 2,
        generation: 1,
        conditions: [c("Issuing", "True", "DoesNotExist", 1), c("Ready", "False", "DoesNotExist", 2)],
      },
      {
        at: 3,
        generation: 1,
        conditions: [c("Issuing", "True", "DoesNotExist", 1), c("Ready", "False", "Issuing", 2)],
      },
      { at: 8, generation: 1, conditions: [ready(8)] },
      { at: 9, generation: 1, conditions: [ready(8)], extra: issued },
    ],
    count: 1,
    sum: 8,
    traces: ["Widget generation 1 ready: condition Ready=False 2-8"],
  },
  {
    name: "a flap after Ready=True is its own degraded trace and observes no second reconcile",
    writes: [
      { at: 1, generation: 1, conditions: [c("Ready", "False", "DoesNotExist", 1)] },
      { at: 4, generation: 1, conditions: [ready(4)] },
      { at: 20, generation: 1, conditions: [c("Ready", "False", "Expired", 20)] },
      { at: 25, generation: 1, conditions: [ready(25)] },
    ],
    count: 1,
    sum: 4,
    traces: ["Widget generation 1 ready: condition Ready=False 1-4", "Widget degraded 1 recovered: "],
  },
  {
    name: "re-issued by a spec change: generation 2 has its own trace and one more observation",
    writes: [
      { at: 1, generation: 1, conditions: [c("Ready", "False", "DoesNotExist", 1)] },
      { at: 4, generation: 1, conditions: [ready(4)], extra: issued },
      // The spec change: Ready still True for generation 1, so generation 2 waits.
      { at: 30, generation: 2, conditions: [ready(4)], extra: issued },
      {
        at: 31,
        generation: 2,
        conditions: [ready(4, 2), c("Issuing", "True", "Reissuing", 31, 2)],
        extra: issued,
      },
      { at: 36, generation: 2, conditions: [ready(4, 2)], extra: { ...issued, revision: 2 } },
      {
        at: 37,
        generation: 2,
        conditions: [ready(4, 2)],
        extra: { ...issued, revision: 2, renewalTime: "x" },
      },
    ],
    count: 2,
    // 4 s for generation 1; generation 2 from the spec write (T+30) to the catch-up seen at T+31.
    sum: 4 + 1,
    traces: ["Widget generation 1 ready: condition Ready=False 1-4", "Widget generation 2 ready: "],
  },
  {
    name: "re-issued, Ready=False while generation 2 is worked on: a child of generation 2's trace",
    writes: [
      { at: 1, generation: 1, conditions: [c("Ready", "False", "DoesNotExist", 1)] },
      { at: 4, generation: 1, conditions: [ready(4)] },
      { at: 30, generation: 2, conditions: [ready(4)] },
      { at: 32, generation: 2, conditions: [c("Ready", "False", "Issuing", 32, 2)] },
      { at: 33, generation: 2, conditions: [c("Ready", "False", "Issuing", 32, 2)], extra: issued },
      { at: 40, generation: 2, conditions: [ready(40, 2)] },
    ],
    count: 2,
    sum: 4 + 10,
    traces: [
      "Widget generation 1 ready: condition Ready=False 1-4",
      "Widget generation 2 ready: condition Ready=False 32-40",
    ],
  },
];

for (const history of cases) {
  test(`no status.observedGeneration, generations on conditions: ${history.name}`, async () => {
    const result = await replay(history.writes);
    assert.equal(result.count, history.count, "one reconcile observation per reconciled generation");
    assert.equal(result.sum, history.sum, "reconcile seconds");
    assert.deepEqual(traces(result.spans), history.traces);
  });
}

// Random histories of the same shape: spec changes, and status writes of Ready
// (True, False, Unknown or absent; for the current generation or the one
// before), sometimes with Issuing, sometimes only other fields changed.
type Step =
  | { kind: "spec"; dt: number }
  | { kind: "status"; dt: number; ready: Written["status"] | "absent"; behind: boolean; issuing: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("spec" as const), dt: fc.integer({ min: 1, max: 30 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("status" as const),
      dt: fc.integer({ min: 1, max: 30 }),
      ready: fc.constantFrom("True", "False", "Unknown", "absent"),
      behind: fc.boolean(),
      issuing: fc.boolean(),
    }),
  },
);

interface Expected {
  writes: Write[];
  /** Generations that reached Ready=True for themselves. */
  reconciled: number;
  /** Per generation, the intervals Ready spent away from True while its trace was open. */
  children: Map<number, number>;
}

/** What the rules say the steps must give, computed without the exporter. */
function expect(steps: readonly Step[]): Expected {
  const writes: Write[] = [];
  const children = new Map<number, number>();
  const reconciled = new Set<number>();
  let at = 0;
  let generation = 1;
  let open = true;
  let ready: Written | undefined;
  let extra = 0;
  const away = () => ready !== undefined && ready.status !== "True";
  const countInterval = () => children.set(generation, (children.get(generation) ?? 0) + 1);
  for (const s of steps) {
    at += s.dt;
    if (s.kind === "spec") {
      generation++;
      open = true;
      if (away()) countInterval();
    } else {
      const observed = s.behind && generation > 1 ? generation - 1 : generation;
      const before = ready;
      ready =
        s.ready === "absent"
          ? undefined
          : c("Ready", s.ready, "Because", before?.status === s.ready ? before.since : at, observed);
      if (open && away() && before?.status !== ready?.status) countInterval();
      if (ready?.status === "True" && observed >= generation) {
        if (open) reconciled.add(generation);
        open = false;
      }
      extra++;
    }
    const conditions = [
      ...(ready ? [ready] : []),
      ...(s.kind === "status" && s.issuing ? [c("Issuing", "True", "Issuing", at, generation)] : []),
    ];
    writes.push({ at, generation, conditions, extra: { revision: extra } });
  }
  return { writes, reconciled: reconciled.size, children };
}

test("property: reconcile observations = generations that reached Ready=True; each interval away from Ready in a generation is one child", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
      const expected = expect(steps);
      const result = await replay(expected.writes, true);
      assert.equal(result.count, expected.reconciled, "reconcile observations");
      const children = new Map<number, number>();
      for (const root of result.spans.filter((s) => s.name === "Widget generation")) {
        const generation = Number(root.attributes[attr.K8S_OBJECT_GENERATION]);
        const count = result.spans.filter(
          (s) => s.parentSpanId === root.spanId && s.name === "condition Ready",
        ).length;
        if (count > 0) children.set(generation, count);
      }
      assert.deepEqual(children, expected.children, "child spans per generation");
    }),
    { numRuns: 150 },
  );
});
