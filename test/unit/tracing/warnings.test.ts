// Kubernetes Warning events as `k8s.event` span events of the object's open
// root, as tables of plain values: planWarning and planObservation called
// directly (plain values in, span plans out), then one history through the
// production tracing factory to see the SDK span carry the events.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultReadinessRules } from "../../../src/core/judge/readiness.ts";
import type { ObjectState } from "../../../src/core/state.ts";
import * as attr from "../../../src/tracing/attributes.ts";
import {
  type ObjectTraceState,
  type PlannerSettings,
  plannerSettings,
  type SpanPlan,
  type WarningObservation,
} from "../../../src/tracing/planner/model.ts";
import { planObservation } from "../../../src/tracing/planner/plan.ts";
import { planWarning } from "../../../src/tracing/planner/warnings.ts";
import type { ObjectObservation } from "../../../src/tracing/state-tracer.ts";
import { at, cluster, condition, generationIds, memoryTracing, object, widgets } from "./support.ts";

const rules = { ...defaultReadinessRules, readyCondition: "Ready" };

function observe(
  settings: PlannerSettings,
  state: ObjectTraceState | undefined,
  previous: ObjectState | undefined,
  current: ObjectState | undefined,
  now: number,
) {
  const o: ObjectObservation = {
    resource: widgets,
    statusSubresource: true,
    readiness: rules,
    previous,
    current,
    nowMs: at(now),
    replay: false,
  };
  return planObservation(settings, state, o);
}

/** Generation 2 of w1, its spec written at T+10, not reconciled yet. */
const pending = object({
  generation: 2,
  observedGeneration: 1,
  specChangedAt: 1_767_225_610,
  conditions: [condition("Ready", "True", 0)],
});
/** Generation 2 reconciled at T+40. */
const reconciled = object({
  generation: 2,
  observedGeneration: 2,
  specChangedAt: 1_767_225_610,
  conditions: [condition("Ready", "True", 40)],
});
const settled1 = object({
  generation: 1,
  observedGeneration: 1,
  conditions: [condition("Ready", "True", 0)],
});

const warning = (
  seconds: number | undefined,
  reason = "FailedCreate",
  count = 1,
  message = "quota exceeded",
): WarningObservation => ({ reason, message, count, atMs: seconds === undefined ? undefined : at(seconds) });

const k8sEvent = (timeMs: number, reason = "FailedCreate", count = 1, message = "quota exceeded") => ({
  name: "k8s.event",
  timeMs,
  attributes: {
    [attr.K8S_EVENT_TYPE]: "Warning",
    [attr.K8S_EVENT_REASON]: reason,
    [attr.K8S_EVENT_MESSAGE]: message,
    [attr.K8S_EVENT_COUNT]: count,
  },
});

interface Row {
  name: string;
  /** Warning updates counted, each at `now` seconds after T. */
  warnings: { now: number; warning: WarningObservation }[];
  /** When generation 2 is reconciled (its root ends at T+40). */
  endNow?: number;
  max?: number;
  events: SpanPlan["events"];
  dropped?: number;
}

const rows: Row[] = [
  {
    name: "one warning while the root is open: an event at the event's time",
    warnings: [{ now: 21, warning: warning(20) }],
    events: [k8sEvent(at(20))],
  },
  {
    name: "the count is the occurrences of this update; the message as stored",
    warnings: [
      { now: 21, warning: warning(20, "BackOff", 3, "back-off restarting") },
      { now: 31, warning: warning(30, "BackOff", 2, "back-off restarting") },
    ],
    events: [
      k8sEvent(at(20), "BackOff", 3, "back-off restarting"),
      k8sEvent(at(30), "BackOff", 2, "back-off restarting"),
    ],
  },
  {
    name: "no event time: the time the update was counted",
    warnings: [{ now: 25, warning: warning(undefined) }],
    events: [k8sEvent(at(25))],
  },
  {
    name: "sub-second event time kept as given",
    warnings: [{ now: 21, warning: { ...warning(20), atMs: at(20) + 250 } }],
    events: [k8sEvent(at(20) + 250)],
  },
  {
    name: "an event from before the root began (an earlier episode's, seen late) is ignored",
    warnings: [
      { now: 21, warning: warning(5) },
      { now: 22, warning: warning(21, "Late") },
    ],
    events: [k8sEvent(at(21), "Late")],
  },
  {
    name: "an update that adds no occurrence records nothing",
    warnings: [{ now: 21, warning: warning(20, "FailedCreate", 0) }],
    events: [],
  },
  {
    name: "bounded: the first max events kept, the rest counted in k8s.event.dropped",
    max: 2,
    warnings: [11, 12, 13, 14, 15].map((s) => ({ now: s, warning: warning(s, `R${s}`) })),
    events: [k8sEvent(at(11), "R11"), k8sEvent(at(12), "R12")],
    dropped: 3,
  },
  {
    name: "an event in a second after the root's end (counted before the object update came) is left out",
    warnings: [
      { now: 35, warning: warning(35, "Before") },
      { now: 41, warning: warning(41, "After") },
    ],
    endNow: 42,
    events: [k8sEvent(at(35), "Before")],
  },
  {
    name: "an event within the end's second is kept, clamped to the end",
    warnings: [{ now: 41, warning: { ...warning(40, "Same"), atMs: at(40) + 600 } }],
    endNow: 42,
    events: [k8sEvent(at(40), "Same")],
  },
];

for (const row of rows) {
  test(`warning events: ${row.name}`, () => {
    const settings = plannerSettings(cluster, row.max === undefined ? {} : { maxWarningEvents: row.max });
    let state = observe(settings, undefined, undefined, settled1, 1).state;
    state = observe(settings, state, settled1, pending, 11).state;
    assert.equal(state?.open?.kind, "generation");
    for (const w of row.warnings)
      state = planWarning(settings, state as ObjectTraceState, w.warning, at(w.now));
    const result = observe(settings, state, pending, reconciled, row.endNow ?? 40);
    const root = result.spans.find((s) => s.spanId === generationIds(2).root);
    assert.ok(root, "the generation 2 root ended");
    assert.equal(root.endMs, at(40));
    assert.deepEqual(root.events, row.events);
    assert.equal(root.attributes[attr.K8S_EVENT_DROPPED], row.dropped);
    assert.equal(result.state?.open, undefined);
  });
}

test("warning events: after the root closed, an event is ignored (no open root, state unchanged)", () => {
  const settings = plannerSettings(cluster);
  let state = observe(settings, undefined, undefined, settled1, 1).state as ObjectTraceState;
  assert.equal(state.open, undefined);
  assert.equal(planWarning(settings, state, warning(2), at(2)), state);
  state = observe(settings, state, settled1, pending, 11).state as ObjectTraceState;
  state = observe(settings, state, pending, reconciled, 40).state as ObjectTraceState;
  const after = planWarning(settings, state, warning(45), at(45));
  assert.equal(after, state, "nothing recorded once the root ended");
  // The next generation's root does not inherit it.
  const g3 = object({
    generation: 3,
    observedGeneration: 2,
    specChangedAt: 1_767_225_650,
    conditions: [condition("Ready", "True", 40)],
  });
  const done3 = object({ ...g3, observedGeneration: 3, conditions: [condition("Ready", "True", 60)] });
  state = observe(settings, after, reconciled, g3, 50).state as ObjectTraceState;
  const end = observe(settings, state, g3, done3, 60);
  assert.deepEqual(end.spans.find((s) => s.spanId === generationIds(3).root)?.events, []);
});

test("warning events: planWarning leaves the caller's state untouched (pure)", () => {
  const settings = plannerSettings(cluster);
  let state = observe(settings, undefined, undefined, settled1, 1).state;
  state = observe(settings, state, settled1, pending, 11).state as ObjectTraceState;
  const before = structuredClone(state);
  const next = planWarning(settings, state, warning(20), at(21));
  assert.deepEqual(state, before);
  assert.notEqual(next, state);
  assert.equal(next.open?.warnings?.events.length, 1);
});

test("warning events: a degraded root carries them too", () => {
  const settings = plannerSettings(cluster);
  const ready = object({ observedGeneration: 1, conditions: [condition("Ready", "True", 0)] });
  const flap = object({
    observedGeneration: 1,
    conditions: [condition("Ready", "False", 20, "Unreachable")],
  });
  const back = object({ observedGeneration: 1, conditions: [condition("Ready", "True", 30)] });
  let state = observe(settings, undefined, undefined, ready, 1).state;
  state = observe(settings, state, ready, flap, 21).state as ObjectTraceState;
  assert.equal(state.open?.kind, "degraded");
  state = planWarning(settings, state, warning(25, "Unhealthy"), at(25));
  const end = observe(settings, state, flap, back, 31);
  const root = end.spans.find((s) => s.name === "Widget degraded");
  assert.deepEqual(root?.events, [k8sEvent(at(25), "Unhealthy")]);
});

test("warning events: the SDK span of the root carries them as span events at the planned times", async () => {
  const tracing = memoryTracing();
  const record = () => tracing.tracer.records.get("uid-1");
  const o = (previous: ObjectState | undefined, current: ObjectState, now: number): ObjectObservation => ({
    resource: widgets,
    statusSubresource: true,
    readiness: rules,
    previous,
    current,
    nowMs: at(now),
    replay: false,
  });
  tracing.tracer.observe(o(undefined, settled1, 1));
  tracing.tracer.observe(o(settled1, pending, 11));
  const inner = tracing.tracer.tracer;
  const current = record();
  assert.ok(current && inner.warning);
  tracing.tracer.records.set("uid-1", inner.warning(current, warning(20, "FailedCreate", 2), at(21)));
  tracing.tracer.observe(o(pending, reconciled, 40));
  const root = (await tracing.take()).find((s) => s.spanId === generationIds(2).root);
  assert.deepEqual(root?.events, [k8sEvent(at(20), "FailedCreate", 2)]);
  await tracing.tracer.shutdown();
});
