// What tracing costs per observation, in three layers: the pure planner, the
// tracer without an SDK (state, planner, emitted-id memory), and the whole
// path through the OpenTelemetry SDK into an in-memory exporter.
//
//   node bench/tracing-overhead.ts [objects=2000] [rounds=5]
//
// Each object goes through a rollout (create, Progressing/Ready=False, Ready),
// then a spec change and its catch-up, then heartbeat-only status writes (the
// common case: nothing to trace). Prints the median of `rounds` runs.

import { defaultReadinessRules } from "../src/core/judge/readiness.ts";
import type { ConditionState, ObjectState } from "../src/core/state.ts";
import { silentLogger } from "../src/log.ts";
import type { ObjectTraceState } from "../src/tracing/planner/model.ts";
import { plannerSettings } from "../src/tracing/planner/model.ts";
import { planObservation } from "../src/tracing/planner/plan.ts";
import { createStateTracer } from "../src/tracing/planning-tracer.ts";
import type { ObjectObservation } from "../src/tracing/state-tracer.ts";
import { RecordKeepingTracer } from "../test/support/trace-records.ts";
import { condition, memoryTracing, object, T, widgets } from "../test/unit/tracing/support.ts";

const objects = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 5);
const heartbeats = 6;
const resource = widgets;
const settings = plannerSettings("bench");

const cond = (type: string, status: ConditionState["status"], since: number, og?: number): ConditionState =>
  condition(type, status, since, status === "True" ? "Succeeded" : "InProgress", "", og);

function history(uid: string): { object: ObjectState; now: number }[] {
  const base: ObjectState = object({ uid, name: uid });
  const steps = [
    { object: base, now: 1 },
    {
      object: {
        ...base,
        observedGeneration: 1,
        phase: "Provisioning",
        conditions: [cond("Progressing", "True", 2), cond("Ready", "False", 2)],
      },
      now: 3,
    },
    {
      object: {
        ...base,
        observedGeneration: 1,
        phase: "Running",
        conditions: [cond("Progressing", "False", 5), cond("Ready", "True", 5, 1)],
      },
      now: 6,
    },
    {
      object: {
        ...base,
        generation: 2,
        specChangedAt: T + 10,
        observedGeneration: 1,
        phase: "Running",
        conditions: [cond("Progressing", "False", 5), cond("Ready", "True", 5, 1)],
      },
      now: 11,
    },
    {
      object: {
        ...base,
        generation: 2,
        specChangedAt: T + 10,
        observedGeneration: 2,
        phase: "Running",
        conditions: [cond("Progressing", "False", 5), cond("Ready", "True", 5, 2)],
      },
      now: 13,
    },
  ];
  const settled = steps.at(-1)?.object ?? base;
  for (let i = 0; i < heartbeats; i++)
    steps.push({ object: { ...settled, heartbeat: T + 20 + i }, now: 20 + i });
  return steps;
}

const histories = Array.from({ length: objects }, (_, i) => history(`uid-${i}`));
const observationsPerObject = histories[0]?.length ?? 0;

/** Feeds every history, step by step across all objects (as a watch would interleave them). */
function feed(observe: (o: ObjectObservation) => void): void {
  for (let step = 0; step < observationsPerObject; step++) {
    for (const steps of histories) {
      const current = steps[step];
      if (!current) continue;
      observe({
        resource,
        statusSubresource: true,
        readiness: defaultReadinessRules,
        previous: steps[step - 1]?.object,
        current: current.object,
        nowMs: (T + current.now) * 1000,
        replay: false,
      });
    }
  }
}

interface Result {
  label: string;
  nsPerObservation: number;
  spans: number;
}

function measure(
  label: string,
  setup: () => { observe: (o: ObjectObservation) => void; spans: () => number },
): Result {
  const samples: number[] = [];
  let spans = 0;
  for (let round = 0; round < rounds + 1; round++) {
    const run = setup();
    const started = process.hrtime.bigint();
    feed(run.observe);
    const elapsed = Number(process.hrtime.bigint() - started);
    spans = run.spans();
    if (round > 0) samples.push(elapsed); // the first round warms up the JIT
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? 0;
  return { label, nsPerObservation: median / (objects * observationsPerObject), spans };
}

const results: Result[] = [];

results.push(
  measure("planner only (pure)", () => {
    const states = new Map<string, ObjectTraceState>();
    let spans = 0;
    return {
      observe(o) {
        const uid = o.current?.uid ?? "";
        const result = planObservation(settings, states.get(uid), o);
        if (result.state) states.set(uid, result.state);
        spans += result.spans.length;
      },
      spans: () => spans,
    };
  }),
);

results.push(
  measure("tracer, no-op sink", () => {
    let spans = 0;
    const tracer = createStateTracer({
      settings,
      logger: silentLogger,
      sink: { emit: () => void spans++, isSampled: () => true, shutdown: async () => {} },
      emittedCapacity: 100_000,
    });
    const kept = new RecordKeepingTracer(tracer);
    return { observe: (o) => kept.observe(o), spans: () => spans };
  }),
);

results.push(
  measure("tracer + OpenTelemetry SDK (in-memory exporter)", () => {
    const { tracer, exporter } = memoryTracing({ tracer: { emittedCapacity: 100_000 } });
    return { observe: (o) => tracer.observe(o), spans: () => exporter.getFinishedSpans().length };
  }),
);

/** Heartbeat-only writes on settled objects (the common case), after the histories ran untimed. */
function measureSteady(label: string): Result {
  const samples: number[] = [];
  for (let round = 0; round < rounds + 1; round++) {
    const tracer = createStateTracer({
      settings,
      logger: silentLogger,
      sink: { emit: () => {}, isSampled: () => true, shutdown: async () => {} },
    });
    const kept = new RecordKeepingTracer(tracer);
    feed((o) => kept.observe(o));
    const started = process.hrtime.bigint();
    for (let beat = 0; beat < heartbeats; beat++) {
      for (const steps of histories) {
        const last = steps.at(-1);
        if (!last) continue;
        const next = { ...last.object, heartbeat: T + 100 + beat };
        kept.observe({
          resource,
          statusSubresource: true,
          readiness: defaultReadinessRules,
          previous: last.object,
          current: next,
          nowMs: (T + 100 + beat) * 1000,
          replay: false,
        });
      }
    }
    const elapsed = Number(process.hrtime.bigint() - started);
    if (round > 0) samples.push(elapsed);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? 0;
  return { label, nsPerObservation: median / (objects * heartbeats), spans: 0 };
}
const steady = measureSteady("steady state: heartbeat-only write on a settled object");

const observations = objects * observationsPerObject;
console.log(
  `node ${process.version}, ${objects} objects × ${observationsPerObject} observations = ${observations}, median of ${rounds} rounds`,
);
console.log(
  "| layer | µs per observation | spans emitted | µs per emitted span (all observations' cost / spans) |",
);
console.log("|---|---:|---:|---:|");
for (const r of results) {
  const perSpan = r.spans > 0 ? (r.nsPerObservation * observations) / r.spans / 1000 : 0;
  console.log(
    `| ${r.label} | ${(r.nsPerObservation / 1000).toFixed(2)} | ${r.spans} | ${perSpan.toFixed(2)} |`,
  );
}
console.log(
  `| ${steady.label} (tracer, no-op sink) | ${(steady.nsPerObservation / 1000).toFixed(2)} | 0 | – |`,
);
