// Object histories fed through the tracer and the real SDK (in-memory
// exporter): the exact spans, ids, times, attributes and links each produces.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as attr from "../../../src/tracing/attributes.ts";
import {
  at,
  condition,
  conditionSpan,
  degradedIds,
  degradedSpan,
  generationIds,
  generationSpan,
  History,
  memoryTracing,
  object,
  phaseSpan,
  reasonChanged,
  type SpanView,
  sprockets,
  T,
} from "./support.ts";

const g1 = generationIds(1);
const g2 = generationIds(2);

/** A finished generation-1 rollout: created, Progressing/Ready=False, then reconciled. */
function rolloutHistory(history: History): void {
  history.step({ now: 1, object: object() });
  history.step({
    now: 3,
    object: object({
      observedGeneration: 1,
      phase: "Provisioning",
      conditions: [
        condition("Progressing", "True", 2, "InProgress", "creating"),
        condition("Ready", "False", 2, "Pending"),
      ],
    }),
  });
  history.step({
    now: 6,
    object: object({
      observedGeneration: 1,
      phase: "Running",
      conditions: [
        condition("Progressing", "False", 5, "Done"),
        condition("Ready", "True", 5, "Succeeded", "", 1),
      ],
    }),
  });
}

test("bump → Progressing → Ready: a generation root with condition and phase children", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  history.step({ now: 1, object: object() });
  history.step({
    now: 3,
    object: object({
      observedGeneration: 1,
      phase: "Provisioning",
      conditions: [
        condition("Progressing", "True", 2, "InProgress", "creating"),
        condition("Ready", "False", 2, "Pending"),
      ],
    }),
  });
  assert.deepEqual(await tracing.take(), [], "nothing ends before the object is reconciled");
  assert.equal(tracing.tracer.openEpisodes, 1);

  history.step({
    now: 6,
    object: object({
      observedGeneration: 1,
      phase: "Running",
      conditions: [
        condition("Progressing", "False", 5, "Done"),
        condition("Ready", "True", 5, "Succeeded", "", 1),
      ],
    }),
  });
  const expected: SpanView[] = [
    conditionSpan(g1, {
      type: "Progressing",
      status: "True",
      since: 2,
      startMs: at(2),
      endMs: at(5),
      reason: "InProgress",
      message: "creating",
      nextStatus: "False",
      endSource: "condition",
    }),
    conditionSpan(g1, {
      type: "Ready",
      status: "False",
      since: 2,
      startMs: at(2),
      endMs: at(5),
      reason: "Pending",
      nextStatus: "True",
      endSource: "condition",
    }),
    // Phases have no server time: seen at T+3, and its end is capped at the root's end.
    phaseSpan(g1, {
      phase: "Provisioning",
      startMs: at(3),
      endMs: at(5),
      nextPhase: "Running",
      endSource: "observed",
    }),
    generationSpan(1, {
      startMs: at(0),
      endMs: at(5),
      status: "ok",
      startSource: "creation_timestamp",
      outcome: "ready",
      endSource: "condition",
      observedGeneration: 1,
    }),
  ];
  assert.deepEqual(await tracing.take(), expected);
  assert.equal(tracing.tracer.openEpisodes, 0);
  assert.equal(tracing.tracer.traceIdFor("uid-1", 1), g1.traceId);
});

test("superseded generation: the old root ends at the spec change, the new one links to it", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  history.step({
    now: 1,
    object: object({ observedGeneration: 1, conditions: [condition("Ready", "False", 1)] }),
  });
  history.step({
    now: 11,
    object: object({
      generation: 2,
      specChangedAt: T + 10,
      observedGeneration: 1,
      conditions: [condition("Ready", "False", 1)],
    }),
  });
  const superseded = await tracing.take();
  assert.deepEqual(
    superseded.map((s) => [s.name, s.spanId, s.parentSpanId, s.startMs, s.endMs, s.status]),
    [
      ["condition Ready", g1.condition("Ready", 1, "False"), g1.root, at(1), at(10), "unset"],
      ["Widget generation", g1.root, undefined, at(0), at(10), "unset"],
    ],
  );
  assert.equal(superseded[1]?.attributes[attr.OUTCOME], "superseded");
  assert.equal(superseded[1]?.attributes[attr.END_SOURCE], "spec_change");
  assert.equal(superseded[1]?.attributes[attr.OBSERVED_GENERATION], 1);

  history.step({
    now: 16,
    object: object({
      generation: 2,
      specChangedAt: T + 10,
      observedGeneration: 2,
      conditions: [condition("Ready", "True", 15, "Succeeded", "", 2)],
    }),
  });
  const expected: SpanView[] = [
    // Ready was already False at the spec change: clamped into the new root, raw time kept.
    conditionSpan(g2, {
      type: "Ready",
      status: "False",
      since: 1,
      startMs: at(10),
      endMs: at(15),
      nextStatus: "True",
      endSource: "condition",
    }),
    generationSpan(2, {
      startMs: at(10),
      endMs: at(15),
      status: "ok",
      startSource: "spec_change",
      outcome: "ready",
      endSource: "condition",
      observedGeneration: 2,
    }),
  ];
  assert.deepEqual(await tracing.take(), expected);
  assert.equal(tracing.tracer.traceIdFor("uid-1", 2), g2.traceId);
});

test("deleted mid-rollout: children and root end at the deletion, outcome deleted", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  history.step({
    now: 1,
    object: object({ phase: "Provisioning", conditions: [condition("Ready", "False", 0)] }),
  });
  history.step({ now: 20, object: undefined });
  assert.deepEqual(
    (await tracing.take()).map((s) => [
      s.name,
      s.spanId,
      s.startMs,
      s.endMs,
      s.attributes[attr.END_SOURCE],
      s.status,
    ]),
    [
      ["condition Ready", g1.condition("Ready", 0, "False"), at(0), at(20), "observed", "unset"],
      ["phase Provisioning", g1.phase("Provisioning", at(1)), at(1), at(20), "observed", "unset"],
      ["Widget generation", g1.root, at(0), at(20), "observed", "unset"],
    ],
  );
  assert.equal(tracing.tracer.openEpisodes, 0);
  assert.equal(tracing.tracer.traceIdFor("uid-1", 1), undefined, "a deleted object is forgotten");
});

test("timeout: the root ends at its deadline with ERROR; a later Ready emits nothing", async () => {
  const tracing = memoryTracing({ settings: { timeoutMs: 60_000 } });
  const history = new History(tracing.tracer);
  history.step({ now: 1, object: object({ conditions: [condition("Ready", "False", 1, "Waiting")] }) });
  tracing.tracer.tick(at(30));
  assert.deepEqual(await tracing.take(), []);
  tracing.tracer.tick(at(61));
  const spans = await tracing.take();
  assert.deepEqual(
    spans.map((s) => [s.name, s.spanId, s.startMs, s.endMs, s.attributes[attr.END_SOURCE], s.status]),
    [
      ["condition Ready", g1.condition("Ready", 1, "False"), at(1), at(60), "deadline", "unset"],
      ["Widget generation", g1.root, at(0), at(60), "deadline", "error"],
    ],
  );
  assert.equal(spans[1]?.attributes[attr.OUTCOME], "timeout");
  assert.equal(spans[1]?.attributes[attr.ERROR_TYPE], "timeout");
  tracing.tracer.tick(at(90));
  history.step({
    now: 70,
    object: object({
      observedGeneration: 1,
      conditions: [condition("Ready", "True", 65, "Succeeded", "", 1)],
    }),
  });
  assert.deepEqual(await tracing.take(), []);
});

/** Observed with only a Ready condition that entered `status` at T + `since` (generation 1, observed). */
function ready(status: "True" | "False", since: number, reason: string, message = "") {
  return object({
    observedGeneration: 1,
    conditions: [condition("Ready", status, since, reason, message, 1)],
  });
}

test("flap: Ready True→False→True with no spec change is its own trace, linked to the generation, with its reason history", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  history.step({ now: 5, object: ready("True", 2, "Succeeded"), replay: true });
  history.step({ now: 101, object: ready("False", 100, "Unhealthy", "probe failed") });
  history.step({ now: 110, object: ready("False", 100, "Evicted") });
  history.step({ now: 131, object: ready("True", 130, "Succeeded") });
  assert.deepEqual(await tracing.take(), [
    degradedSpan(100, {
      status: "False",
      startMs: at(100),
      endMs: at(130),
      reason: "Unhealthy",
      message: "probe failed",
      nextStatus: "True",
      endSource: "condition",
      events: [reasonChanged(at(110), "Unhealthy", "Evicted")],
    }),
  ]);
  assert.equal(tracing.tracer.traceIdFor("uid-1", 1), undefined, "generation 1 was settled when listed");
});

test("relist that coalesces a spec change and its reconciliation: one complete root", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  history.step({
    now: 5,
    object: object({
      observedGeneration: 1,
      conditions: [condition("Ready", "True", 2, "Succeeded", "", 1)],
    }),
    replay: true,
  });
  // The watch broke; while it was down spec changed and the controller caught up.
  history.step({
    now: 300,
    replay: true,
    object: object({
      generation: 2,
      specChangedAt: T + 200,
      observedGeneration: 2,
      phase: "Running",
      conditions: [condition("Ready", "True", 205, "Succeeded", "", 2)],
    }),
  });
  assert.deepEqual(await tracing.take(), [
    generationSpan(2, {
      startMs: at(200),
      endMs: at(205),
      status: "ok",
      startSource: "spec_change",
      outcome: "ready",
      endSource: "condition",
      observedGeneration: 2,
    }),
  ]);
});

test("relist that coalesces Progressing and Ready transitions mid-rollout: children keep server times", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  rolloutHistory(history);
  const live = await tracing.take();

  const relisted = memoryTracing();
  const gap = new History(relisted.tracer);
  gap.step({ now: 1, object: object() });
  gap.step({
    now: 3,
    object: object({
      observedGeneration: 1,
      phase: "Provisioning",
      conditions: [
        condition("Progressing", "True", 2, "InProgress", "creating"),
        condition("Ready", "False", 2, "Pending"),
      ],
    }),
  });
  // Seen only after a relist at T+40: both transitions at T+5 arrive together.
  gap.step({
    now: 40,
    replay: true,
    object: object({
      observedGeneration: 1,
      phase: "Running",
      conditions: [
        condition("Progressing", "False", 5, "Done"),
        condition("Ready", "True", 5, "Succeeded", "", 1),
      ],
    }),
  });
  assert.deepEqual(await relisted.take(), live, "the late relist yields the same spans as watching live");
});

test("restart mid-rollout: the open root resumes with identical ids, times and links", async () => {
  const rollout = async (live: boolean) => {
    const tracing = memoryTracing();
    const history = new History(tracing.tracer);
    if (live) {
      history.step({
        now: 5,
        replay: true,
        object: object({
          observedGeneration: 1,
          conditions: [condition("Ready", "True", 2, "Succeeded", "", 1)],
        }),
      });
    }
    history.step({
      now: live ? 13 : 15,
      replay: !live,
      object: object({
        generation: 2,
        specChangedAt: T + 10,
        observedGeneration: 1,
        conditions: [condition("Ready", "False", 12, "Upgrading", "", 2)],
      }),
    });
    history.step({
      now: 21,
      object: object({
        generation: 2,
        specChangedAt: T + 10,
        observedGeneration: 2,
        conditions: [condition("Ready", "True", 20, "Succeeded", "", 2)],
      }),
    });
    return await tracing.take();
  };
  const uninterrupted = await rollout(true);
  const restarted = await rollout(false);
  assert.equal(uninterrupted.length, 2);
  assert.deepEqual(restarted, uninterrupted);
  assert.deepEqual(
    restarted.map((s) => [s.name, s.spanId, s.startMs, s.endMs]),
    [
      ["condition Ready", g2.condition("Ready", 12, "False"), at(12), at(20)],
      ["Widget generation", g2.root, at(10), at(20)],
    ],
  );
});

test("restart: settled objects emit nothing, now or on later unchanged observations", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  const settled = object({
    generation: 3,
    specChangedAt: T + 50,
    observedGeneration: 3,
    phase: "Running",
    conditions: [condition("Ready", "True", 55, "Succeeded", "", 3)],
  });
  history.step({ now: 100, object: settled, replay: true });
  history.step({ now: 200, object: { ...settled, resourceVersion: "2", heartbeat: T + 190 } });
  history.step({ now: 300, object: settled, replay: true });
  tracing.tracer.tick(at(10_000));
  assert.deepEqual(await tracing.take(), []);
  assert.equal(tracing.tracer.openEpisodes, 0);
});

test("a kind without a status subresource is traced by its ready condition only", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer, sprockets, false);
  history.step({ now: 1, object: object() });
  history.step({
    now: 3,
    object: object({
      generation: 2,
      phase: "Provisioning",
      conditions: [condition("Ready", "False", 2, "Pending")],
    }),
  });
  history.step({
    now: 6,
    object: object({
      generation: 3,
      phase: "Running",
      conditions: [condition("Ready", "True", 5, "Succeeded")],
    }),
  });
  const notReady = degradedIds(2, "False");
  const spans = await tracing.take();
  assert.deepEqual(
    spans.map((s) => [s.name, s.traceId, s.spanId, s.parentSpanId, s.startMs, s.endMs, s.status]),
    [
      ["phase Provisioning", notReady.traceId, spans[0]?.spanId, notReady.root, at(3), at(5), "unset"],
      ["Sprocket degraded", notReady.traceId, notReady.root, undefined, at(2), at(5), "ok"],
    ],
  );
  assert.equal(spans[1]?.attributes[attr.K8S_OBJECT_GENERATION], undefined, "generation means nothing here");
  assert.deepEqual(spans[1]?.links, []);
});

test("stalled: the root ends with ERROR and the stall reason as error.type", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  history.step({ now: 1, object: object({ conditions: [condition("Ready", "False", 1, "Pending")] }) });
  history.step({
    now: 9,
    object: object({
      observedGeneration: 1,
      conditions: [
        condition("Ready", "False", 1, "Pending"),
        condition("Stalled", "True", 8, "QuotaExceeded"),
      ],
    }),
  });
  const spans = await tracing.take();
  const root = spans.at(-1);
  assert.equal(root?.name, "Widget generation");
  assert.equal(root?.status, "error");
  assert.equal(root?.endMs, at(8));
  assert.equal(root?.attributes[attr.OUTCOME], "stalled");
  assert.equal(root?.attributes[attr.ERROR_TYPE], "QuotaExceeded");
  assert.deepEqual(
    spans.map((s) => s.name),
    ["condition Ready", "Widget generation"],
  );
});

test("not the leader: state is kept but nothing is exported until it leads", async () => {
  let leader = false;
  const tracing = memoryTracing({ tracer: { isLeader: () => leader } });
  const history = new History(tracing.tracer);
  history.step({ now: 1, object: object({ conditions: [condition("Ready", "False", 1)] }) });
  history.step({
    now: 2,
    object: object({ conditions: [condition("Ready", "False", 1), condition("Synced", "False", 2)] }),
  });
  history.step({
    now: 3,
    object: object({ conditions: [condition("Ready", "False", 1), condition("Synced", "True", 3)] }),
  });
  assert.deepEqual(await tracing.take(), [], "the Synced interval ended while another replica led");
  leader = true;
  history.step({
    now: 4,
    object: object({
      observedGeneration: 1,
      conditions: [condition("Ready", "True", 4, "", "", 1), condition("Synced", "True", 3)],
    }),
  });
  assert.deepEqual(
    (await tracing.take()).map((s) => [s.name, s.startMs, s.endMs]),
    [
      ["condition Ready", at(1), at(4)],
      ["Widget generation", at(0), at(4)],
    ],
  );
});

test("shutdown keeps open roots for a restart by default, or ends them as interrupted", async () => {
  const kept = memoryTracing();
  new History(kept.tracer).step({ now: 1, object: object({ conditions: [condition("Ready", "False", 1)] }) });
  await kept.tracer.shutdown();
  assert.deepEqual(await kept.take(), []);

  const ended = memoryTracing({ tracer: { endOpenSpansOnShutdown: true, nowMs: () => at(7) } });
  new History(ended.tracer).step({
    now: 1,
    object: object({ conditions: [condition("Ready", "False", 1)] }),
  });
  const spans = ended.exporter.getFinishedSpans().length;
  assert.equal(spans, 0);
  // The in-memory exporter forgets its spans on shutdown, so read them as they end.
  const seen: string[] = [];
  const original = ended.exporter.export.bind(ended.exporter);
  ended.exporter.export = (batch, done) => {
    for (const span of batch) seen.push(`${span.name}:${String(span.attributes[attr.OUTCOME] ?? "")}`);
    original(batch, done);
  };
  await ended.tracer.shutdown();
  assert.deepEqual(seen, ["condition Ready:", "Widget generation:interrupted"]);
});

test("a reason change inside a False interval: one span, the first reason on it, the change as an event", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  history.step({
    now: 1,
    object: object({
      conditions: [condition("Ready", "False", 1, "RequestChanged", "applying the request")],
    }),
  });
  history.step({
    now: 4,
    object: object({ conditions: [condition("Ready", "False", 1, "RequestChanged", "still applying")] }),
  });
  history.step({
    now: 7,
    object: object({
      conditions: [condition("Ready", "False", 1, "SecretMismatch", "secret s1 has no key")],
    }),
  });
  history.step({
    now: 12,
    object: object({
      observedGeneration: 1,
      conditions: [condition("Ready", "True", 11, "Succeeded", "", 1)],
    }),
  });
  const [ready, root] = await tracing.take();
  assert.deepEqual(
    ready,
    conditionSpan(g1, {
      type: "Ready",
      status: "False",
      since: 1,
      startMs: at(1),
      endMs: at(11),
      reason: "RequestChanged",
      message: "applying the request",
      nextStatus: "True",
      endSource: "condition",
      events: [reasonChanged(at(7), "RequestChanged", "SecretMismatch", "secret s1 has no key")],
    }),
  );
  assert.equal(root?.name, "Widget generation");
});

test("reason changes are bounded per interval; the rest are counted on the span", async () => {
  const tracing = memoryTracing({ settings: { maxReasonChangeEvents: 2 } });
  const history = new History(tracing.tracer);
  const reasons = ["A", "B", "C", "D", "E"];
  reasons.forEach((reason, i) => {
    history.step({ now: 1 + i, object: object({ conditions: [condition("Ready", "False", 1, reason)] }) });
  });
  history.step({ now: 20, object: undefined });
  const ready = (await tracing.take()).find((s) => s.name === "condition Ready");
  assert.deepEqual(ready?.events, [reasonChanged(at(2), "A", "B"), reasonChanged(at(3), "B", "C")]);
  assert.equal(ready?.attributes[attr.CONDITION_REASON], "A");
  assert.equal(ready?.attributes[attr.CONDITION_REASON_CHANGES_DROPPED], 2);
});
