// The planner's joins, as tables of plain values: a generation (or degraded)
// root and its controller owner's root (open, ended, moved on, unknown), its
// source's root, and the request that started it (a trace context in an
// annotation: valid, malformed, repeated). planObservation is called directly:
// plain values in, span plans out.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultReadinessRules } from "../../../src/core/judge/readiness.ts";
import type { ObjectState } from "../../../src/core/state.ts";
import * as attr from "../../../src/tracing/attributes.ts";
import { TraceDirectory } from "../../../src/tracing/directory.ts";
import { generationTraceKey, spanIdOf, traceIdOf } from "../../../src/tracing/ids.ts";
import { type JoinTarget, parseTraceContext, resolveJoin } from "../../../src/tracing/joins.ts";
import {
  type Joins,
  type ObjectTraceState,
  plannerSettings,
  type SpanPlan,
} from "../../../src/tracing/planner/model.ts";
import { planObservation } from "../../../src/tracing/planner/plan.ts";
import type { ObjectObservation } from "../../../src/tracing/state-tracer.ts";
import { at, cluster, condition, generationIds, object, widgets } from "./support.ts";

const settings = plannerSettings(cluster);
const rules = { ...defaultReadinessRules, readyCondition: "Ready" };

function observe(
  state: ObjectTraceState | undefined,
  previous: ObjectState | undefined,
  current: ObjectState | undefined,
  now: number,
  joins?: Joins,
  replay = false,
) {
  const o: ObjectObservation = {
    resource: widgets,
    statusSubresource: true,
    readiness: rules,
    previous,
    current,
    nowMs: at(now),
    replay,
    joins,
  };
  return planObservation(settings, state, o);
}

const ownerIds = (generation: number) => generationIds(generation, "owner-uid");

/** The owner as the directory knows it: generation 2 began at T+5. */
function owner(fields: Partial<JoinTarget> = {}): JoinTarget {
  return {
    uid: "owner-uid",
    kind: "MachineSet",
    generation: 2,
    startMs: at(5),
    settledAtMs: undefined,
    traceId: ownerIds(2).traceId,
    previousTraceId: ownerIds(1).traceId,
    ...fields,
  };
}

const joins = (fields: Partial<Joins> = {}): Joins => ({
  parent: undefined,
  owner: undefined,
  source: undefined,
  traceContext: undefined,
  ...fields,
});

/** A child created at T+10, Ready False until T+30. */
const pending = object({
  creationTimestamp: at(10) / 1000,
  specChangedAt: at(10) / 1000,
  conditions: [condition("Ready", "False", 10)],
});
const ready = { ...pending, observedGeneration: 1, conditions: [condition("Ready", "True", 30, "", "", 1)] };

/** The generation-1 root of the child and its Ready interval, after creation and readiness. */
function rollout(j: Joins | undefined): { root: SpanPlan; child: SpanPlan; all: SpanPlan[] } {
  const first = observe(undefined, undefined, pending, 11, j);
  const second = observe(first.state, pending, ready, 31, j);
  const all = [...first.spans, ...second.spans];
  const root = all.find((s) => s.name === "Widget generation") as SpanPlan;
  const child = all.find((s) => s.name === "condition Ready") as SpanPlan;
  return { root, child, all };
}

const own = generationIds(1);

test("owner joins: open, ended, moved on, unknown; link by default, parent with tracing.parent: owner", () => {
  const table: {
    name: string;
    joins: Joins | undefined;
    traceId: string;
    parentSpanId: string | undefined;
    parent?: string;
    links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  }[] = [
    { name: "no joins", joins: undefined, traceId: own.traceId, parentSpanId: undefined, links: [] },
    {
      name: "owner unknown (not watched, not seen): nothing invented",
      joins: joins({ parent: "owner" }),
      traceId: own.traceId,
      parentSpanId: undefined,
      links: [],
    },
    {
      name: "owner open: linked",
      joins: joins({ owner: owner() }),
      traceId: own.traceId,
      parentSpanId: undefined,
      links: [
        {
          traceId: ownerIds(2).traceId,
          spanId: ownerIds(2).root,
          attributes: { [attr.LINK_REASON]: "owner", [attr.LINK_KIND]: "MachineSet" },
        },
      ],
    },
    {
      name: "owner open, parent: owner → a child of the owner's root, in its trace",
      joins: joins({ owner: owner(), parent: "owner" }),
      traceId: ownerIds(2).traceId,
      parentSpanId: ownerIds(2).root,
      parent: "owner",
      links: [],
    },
    {
      name: "owner settled before the child began: a link marked ended, never the parent",
      joins: joins({ owner: owner({ settledAtMs: at(8) }), parent: "owner" }),
      traceId: own.traceId,
      parentSpanId: undefined,
      links: [
        {
          traceId: ownerIds(2).traceId,
          spanId: ownerIds(2).root,
          attributes: {
            [attr.LINK_REASON]: "owner",
            [attr.LINK_KIND]: "MachineSet",
            [attr.LINK_ENDED]: true,
          },
        },
      ],
    },
    {
      name: "owner settled in the same instant the child began: still open",
      joins: joins({ owner: owner({ settledAtMs: at(10) }), parent: "owner" }),
      traceId: ownerIds(2).traceId,
      parentSpanId: ownerIds(2).root,
      parent: "owner",
      links: [],
    },
    {
      name: "owner timed out before the child began: ended",
      joins: joins({ owner: owner({ startMs: at(5) - settings.timeoutMs }) }),
      traceId: own.traceId,
      parentSpanId: undefined,
      links: [
        {
          traceId: ownerIds(2).traceId,
          spanId: ownerIds(2).root,
          attributes: {
            [attr.LINK_REASON]: "owner",
            [attr.LINK_KIND]: "MachineSet",
            [attr.LINK_ENDED]: true,
          },
        },
      ],
    },
    {
      name: "owner moved on since (generation 3 began at T+20): its generation 2 was in force",
      joins: joins({
        owner: owner({
          generation: 3,
          startMs: at(20),
          traceId: ownerIds(3).traceId,
          previousTraceId: ownerIds(2).traceId,
        }),
        parent: "owner",
      }),
      traceId: ownerIds(2).traceId,
      parentSpanId: ownerIds(2).root,
      parent: "owner",
      links: [],
    },
    {
      name: "owner created after the child began: nothing",
      joins: joins({
        owner: owner({ generation: 1, startMs: at(20), previousTraceId: undefined }),
        parent: "owner",
      }),
      traceId: own.traceId,
      parentSpanId: undefined,
      links: [],
    },
    {
      name: "owner whose trace joined its own owner's: the child follows it there",
      joins: joins({ owner: owner({ traceId: "abababababababababababababababab" }), parent: "owner" }),
      traceId: "abababababababababababababababab",
      parentSpanId: ownerIds(2).root,
      parent: "owner",
      links: [],
    },
    {
      name: "source open, parent: source; the owner then only links",
      joins: joins({
        owner: owner(),
        source: owner({
          uid: "source-uid",
          kind: "Kustomization",
          traceId: generationIds(2, "source-uid").traceId,
        }),
        parent: "source",
      }),
      traceId: generationIds(2, "source-uid").traceId,
      parentSpanId: generationIds(2, "source-uid").root,
      parent: "source",
      links: [
        {
          traceId: ownerIds(2).traceId,
          spanId: ownerIds(2).root,
          attributes: { [attr.LINK_REASON]: "owner", [attr.LINK_KIND]: "MachineSet" },
        },
      ],
    },
  ];
  for (const row of table) {
    const { root, child, all } = rollout(row.joins);
    assert.equal(all.length, 2, `${row.name}: root and one child`);
    assert.equal(root.traceId, row.traceId, `${row.name}: trace`);
    assert.equal(root.parentSpanId, row.parentSpanId, `${row.name}: parent`);
    assert.equal(root.spanId, own.root, `${row.name}: the root's own span id never changes`);
    assert.equal(root.attributes[attr.PARENT], row.parent, `${row.name}: cr_status.parent`);
    assert.deepEqual(root.links, row.links, `${row.name}: links`);
    assert.equal(child.traceId, row.traceId, `${row.name}: the child is in the root's trace`);
    assert.equal(child.parentSpanId, own.root, `${row.name}: under the root`);
    assert.equal(child.spanId, own.condition("Ready", 10, "False"), `${row.name}: child id unchanged`);
  }
});

test("owner joins are restart-safe: a root resumed from a list joins the same parent with the same ids", () => {
  const j = joins({ owner: owner(), parent: "owner" });
  const before = rollout(j);
  // The process restarts while the child is pending; the owner has moved on to generation 3 meanwhile.
  const moved = joins({
    owner: owner({
      generation: 3,
      startMs: at(20),
      traceId: ownerIds(3).traceId,
      previousTraceId: ownerIds(2).traceId,
    }),
    parent: "owner",
  });
  const listed = observe(undefined, undefined, pending, 25, moved, true);
  const done = observe(listed.state, pending, ready, 31, moved);
  const after = [...listed.spans, ...done.spans];
  assert.deepEqual(
    after.map((s) => [s.name, s.traceId, s.spanId, s.parentSpanId, s.startMs, s.endMs]),
    before.all.map((s) => [s.name, s.traceId, s.spanId, s.parentSpanId, s.startMs, s.endMs]),
  );
});

test("the next generation's previous_generation link points into the trace the last one joined", () => {
  const j = joins({ owner: owner(), parent: "owner" });
  const first = observe(undefined, undefined, pending, 11, j);
  const second = observe(first.state, pending, ready, 31, j);
  assert.equal(second.state?.tracedTraceId, ownerIds(2).traceId);
  const gen2 = { ...ready, generation: 2, specChangedAt: at(40) / 1000 };
  const third = observe(second.state, ready, gen2, 41, joins());
  const fourth = observe(
    third.state,
    gen2,
    { ...gen2, observedGeneration: 2, conditions: [condition("Ready", "True", 30, "", "", 2)] },
    42,
    joins(),
  );
  const root = fourth.spans.find((s) => s.name === "Widget generation") as SpanPlan;
  assert.equal(root.traceId, generationIds(2).traceId, "no owner: a trace of its own");
  assert.deepEqual(root.links, [
    {
      traceId: ownerIds(2).traceId,
      spanId: own.root,
      attributes: { [attr.LINK_REASON]: "previous_generation" },
    },
  ]);
});

test("a degraded root links to its owner's root in force when it began, never hangs under it", () => {
  const j = joins({ owner: owner({ settledAtMs: at(8) }), parent: "owner" });
  const settled = observe(undefined, undefined, ready, 31, j, true);
  assert.equal(settled.spans.length, 0, "listed settled: nothing");
  const flap = { ...ready, conditions: [condition("Ready", "False", 50, "Flap", "", 1)] };
  const opened = observe(settled.state, ready, flap, 51, j);
  const back = { ...ready, conditions: [condition("Ready", "True", 60, "", "", 1)] };
  const closed = observe(opened.state, flap, back, 61, j);
  const root = closed.spans.find((s) => s.name === "Widget degraded") as SpanPlan;
  assert.equal(root.parentSpanId, undefined);
  assert.deepEqual(
    root.links.map((l) => l.attributes[attr.LINK_REASON]),
    ["generation", "owner"],
  );
  assert.equal(root.links[1]?.attributes[attr.LINK_ENDED], true);
});

const requestTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
const requestSpan = "00f067aa0ba902b7";
const traceparent = `00-${requestTrace}-${requestSpan}-01`;

test("trace-context annotation: valid, JSON with tracestate, malformed", () => {
  const table: {
    name: string;
    value: string;
    traceId: string;
    parentSpanId: string | undefined;
    traceState?: string;
    malformed: boolean;
  }[] = [
    {
      name: "bare traceparent",
      value: traceparent,
      traceId: requestTrace,
      parentSpanId: requestSpan,
      malformed: false,
    },
    {
      name: "agent-sandbox JSON form with tracestate",
      value: JSON.stringify({ traceparent, tracestate: "congo=t61rcWkgMzE" }),
      traceId: requestTrace,
      parentSpanId: requestSpan,
      traceState: "congo=t61rcWkgMzE",
      malformed: false,
    },
    { name: "garbage", value: "hello", traceId: own.traceId, parentSpanId: undefined, malformed: true },
    {
      name: "upper-case hex",
      value: traceparent.toUpperCase(),
      traceId: own.traceId,
      parentSpanId: undefined,
      malformed: true,
    },
    {
      name: "all-zero trace id",
      value: `00-${"0".repeat(32)}-${requestSpan}-01`,
      traceId: own.traceId,
      parentSpanId: undefined,
      malformed: true,
    },
    {
      name: "version ff",
      value: `ff-${requestTrace}-${requestSpan}-01`,
      traceId: own.traceId,
      parentSpanId: undefined,
      malformed: true,
    },
    {
      name: "JSON without traceparent",
      value: "{}",
      traceId: own.traceId,
      parentSpanId: undefined,
      malformed: true,
    },
    {
      name: "broken JSON",
      value: "{traceparent",
      traceId: own.traceId,
      parentSpanId: undefined,
      malformed: true,
    },
  ];
  for (const row of table) {
    const j = joins({ traceContext: row.value });
    const first = observe(undefined, undefined, pending, 11, j);
    assert.equal(first.malformedTraceContext === true, row.malformed, `${row.name}: counted as malformed`);
    const second = observe(first.state, pending, ready, 31, j);
    assert.equal(
      second.malformedTraceContext,
      undefined,
      `${row.name}: counted once, when the generation opened`,
    );
    const spans = [...first.spans, ...second.spans];
    for (const span of spans) {
      assert.equal(span.traceId, row.traceId, `${row.name}: ${span.name} trace`);
      assert.equal(span.traceState, row.traceState, `${row.name}: ${span.name} tracestate`);
    }
    const root = spans.find((s) => s.name === "Widget generation") as SpanPlan;
    assert.equal(root.parentSpanId, row.parentSpanId, `${row.name}: parent`);
    assert.equal(root.attributes[attr.PARENT], row.malformed ? undefined : "request", `${row.name}`);
  }
});

test("trace-context annotation repeated on the next generation: that one links to the request, in a trace of its own", () => {
  const j = joins({ traceContext: traceparent, owner: owner(), parent: "owner" });
  const { all } = rollout(j);
  const root1 = all.find((s) => s.name === "Widget generation") as SpanPlan;
  assert.equal(root1.traceId, requestTrace, "the request wins over the owner as parent");
  assert.equal(root1.parentSpanId, requestSpan);
  assert.deepEqual(
    root1.links.map((l) => l.attributes[attr.LINK_REASON]),
    ["owner"],
    "the owner, not the parent, is linked",
  );
  const first = observe(undefined, undefined, pending, 11, j);
  const settled = observe(first.state, pending, ready, 31, j);
  const gen2 = { ...ready, generation: 2, specChangedAt: at(40) / 1000 };
  const ownerLater = joins({
    traceContext: traceparent,
    owner: owner({ settledAtMs: at(30) }),
    parent: "owner",
  });
  const opened = observe(settled.state, ready, gen2, 41, ownerLater);
  const done = observe(
    opened.state,
    gen2,
    { ...gen2, observedGeneration: 2, conditions: [condition("Ready", "True", 30, "", "", 2)] },
    42,
    ownerLater,
  );
  const root2 = done.spans.find((s) => s.name === "Widget generation") as SpanPlan;
  assert.equal(root2.traceId, generationIds(2).traceId, "not merged into the request's trace");
  assert.equal(root2.parentSpanId, undefined);
  assert.deepEqual(
    root2.links.map((l) => [l.attributes[attr.LINK_REASON], l.traceId, l.spanId]),
    [
      ["previous_generation", requestTrace, own.root],
      ["request", requestTrace, requestSpan],
      ["owner", ownerIds(2).traceId, ownerIds(2).root],
    ],
  );
  // A new request on generation 3 parents it again.
  const next = `00-${"1".repeat(32)}-${"2".repeat(16)}-01`;
  const gen3 = { ...gen2, generation: 3, observedGeneration: 2, specChangedAt: at(50) / 1000 };
  const opened3 = observe(
    done.state,
    { ...gen2, observedGeneration: 2, conditions: [condition("Ready", "True", 30, "", "", 2)] },
    gen3,
    51,
    joins({ traceContext: next }),
  );
  const done3 = observe(
    opened3.state,
    gen3,
    { ...gen3, observedGeneration: 3, conditions: [condition("Ready", "True", 30, "", "", 3)] },
    52,
    joins({ traceContext: next }),
  );
  const root3 = done3.spans.find((s) => s.name === "Widget generation") as SpanPlan;
  assert.equal(root3.traceId, "1".repeat(32));
  assert.equal(root3.parentSpanId, "2".repeat(16));
});

test("parseTraceContext: W3C forms", () => {
  assert.deepEqual(parseTraceContext(traceparent), {
    traceId: requestTrace,
    spanId: requestSpan,
    traceState: undefined,
  });
  assert.equal(
    parseTraceContext(`01-${requestTrace}-${requestSpan}-01-future`)?.traceId,
    requestTrace,
    "a later version may add fields",
  );
  assert.equal(
    parseTraceContext(`00-${requestTrace}-${requestSpan}-01-extra`),
    undefined,
    "version 00 may not",
  );
  assert.equal(parseTraceContext(JSON.stringify({ traceparent, tracestate: 7 })), undefined);
  assert.equal(parseTraceContext("[]"), undefined);
  assert.equal(traceIdOf(generationTraceKey(cluster, "owner-uid", 2)), ownerIds(2).traceId);
  assert.equal(spanIdOf(generationTraceKey(cluster, "owner-uid", 2), "root"), ownerIds(2).root);
});

test("a child seen before its owner joins the owner's root once the owner is known, while none of its spans is out", () => {
  const first = observe(undefined, undefined, pending, 11, joins({ parent: "owner" }));
  assert.equal(first.state?.open?.traceId, own.traceId, "owner unknown: a trace of its own for now");
  const j = joins({ owner: owner(), parent: "owner" });
  const second = observe(first.state, pending, ready, 31, j);
  const root = second.spans.find((s) => s.name === "Widget generation") as SpanPlan;
  assert.equal(root.traceId, ownerIds(2).traceId);
  assert.equal(root.parentSpanId, ownerIds(2).root);
  assert.ok(second.spans.every((s) => s.traceId === ownerIds(2).traceId));
  // Once a child span is out, the trace id stays.
  const flapping = {
    ...pending,
    conditions: [condition("Ready", "False", 10), condition("Synced", "False", 10)],
  };
  const synced = {
    ...pending,
    conditions: [condition("Ready", "False", 10), condition("Synced", "True", 20)],
  };
  const a = observe(undefined, undefined, flapping, 11, joins({ parent: "owner" }));
  const b = observe(a.state, flapping, synced, 21, joins({ parent: "owner" }));
  assert.equal(b.spans[0]?.traceId, own.traceId, "condition Synced emitted in its own trace");
  const c = observe(b.state, synced, { ...ready }, 31, j);
  assert.ok(
    c.spans.every((s) => s.traceId === own.traceId),
    "the root stays with its emitted child",
  );
});

test("a source without generation roots (an Argo CD Application: no status subresource) is no join target: links only to roots that exist, nothing invented", () => {
  const applications = {
    group: "argoproj.io",
    version: "v1alpha1",
    kind: "Application",
    resource: "applications",
    namespaced: true,
  };
  const rules = { parent: "source" as const, source: { group: "argoproj.io", kind: "Application" } };
  const appRules = {
    ...defaultReadinessRules,
    readyCondition: undefined,
    states: [{ name: "health", ready: ["Healthy"], failed: ["Degraded"] }],
  };
  const parent = object({
    uid: "app-uid",
    namespace: "argocd",
    name: "apps",
    generation: 7,
    observedGeneration: undefined,
    states: [
      { name: "health", value: "Progressing", since: 1_767_225_605, sinceSource: "lastTransitionTime" },
    ],
  } as Partial<ObjectState>);
  const child = object({ refs: { source: { namespace: "argocd", name: "apps" } } });
  const rows = [
    {
      name: "Application, no status subresource (degraded roots only)",
      statusSubresource: false,
      joined: false,
    },
    {
      name: "the same parent with a status subresource (generation roots)",
      statusSubresource: true,
      joined: true,
    },
  ];
  for (const row of rows) {
    const directory = new TraceDirectory(cluster, settings.timeoutMs);
    directory.note(applications, row.statusSubresource, appRules, rules, parent, undefined, at(10));
    const joins = directory.joinsOf(child, rules);
    assert.equal(joins?.source !== undefined, row.joined, row.name);
    const opened = observe(undefined, undefined, child, 12, joins);
    const root = opened.state?.open;
    assert.equal(root?.parentSpanId !== undefined, row.joined, `${row.name}: parent`);
    if (!row.joined) {
      assert.equal(root?.traceId, generationIds(1).traceId, `${row.name}: a trace of its own`);
      assert.deepEqual(
        root?.links.filter((l) => l.attributes[attr.LINK_REASON] === "source"),
        [],
        `${row.name}: no source link`,
      );
    }
  }
});

test("parseTraceContext: surrounding spaces, anchors, zero span ids and tracestate bounds", () => {
  const parsed = { traceId: requestTrace, spanId: requestSpan, traceState: undefined };
  assert.deepEqual(parseTraceContext(`  ${traceparent}\n`), parsed);
  assert.deepEqual(parseTraceContext(JSON.stringify({ traceparent: ` ${traceparent} ` })), parsed);
  assert.deepEqual(parseTraceContext(`  ${JSON.stringify({ traceparent })}`), parsed, "JSON after spaces");
  assert.deepEqual(
    parseTraceContext(JSON.stringify({ traceparent, tracestate: "" })),
    parsed,
    "empty tracestate: none",
  );
  const state = `k=${"v".repeat(510)}`;
  assert.equal(
    parseTraceContext(JSON.stringify({ traceparent, tracestate: state }))?.traceState,
    state,
    "512 characters",
  );
  const rows: [name: string, value: string][] = [
    ["a character before it", `x${traceparent}`],
    ["a character after it", `${traceparent}x`],
    ["an all-zero span id", `00-${requestTrace}-${"0".repeat(16)}-01`],
    ["a tracestate of 513 characters", JSON.stringify({ traceparent, tracestate: `${state}v` })],
    ["a tracestate with a line break", JSON.stringify({ traceparent, tracestate: "a=1\nb=2" })],
    ["a tracestate beyond ASCII", JSON.stringify({ traceparent, tracestate: "a=é" })],
    ["a traceparent that is not a string", JSON.stringify({ traceparent: 7 })],
    ["a short trace id", `00-${requestTrace.slice(1)}-${requestSpan}-01`],
  ];
  for (const [name, value] of rows) assert.equal(parseTraceContext(value), undefined, name);
  const zeros = { traceId: `0${"a".repeat(30)}0`, spanId: `0${"b".repeat(14)}0`, traceState: undefined };
  assert.deepEqual(
    parseTraceContext(`00-${zeros.traceId}-${zeros.spanId}-01`),
    zeros,
    "ids that begin or end in zeros, not all zero, are valid",
  );
});

test("resolveJoin: the parent's generation in force when the child began, and whether it was still open", () => {
  const rootOf = (uid: string, generation: number) => `${uid}#${generation}`;
  const target = owner({ settledAtMs: at(20) });
  const resolve = (childStart: number, t: JoinTarget = target, timeoutMs = 3_600_000) =>
    resolveJoin(t, at(childStart), timeoutMs, rootOf);
  const current = { generation: 2, traceId: ownerIds(2).traceId, spanId: "owner-uid#2" };
  assert.deepEqual(resolve(5), { ...current, open: true }, "began in the same millisecond: the current one");
  assert.deepEqual(resolve(20), { ...current, open: true }, "settled in the same millisecond: still open");
  assert.deepEqual(resolve(20.001), { ...current, open: false }, "settled before it began");
  assert.deepEqual(
    resolve(4.999),
    { generation: 1, traceId: ownerIds(1).traceId, spanId: "owner-uid#1", open: true },
    "began before the current one: the previous generation, taken as open",
  );
  assert.equal(
    resolve(4, owner({ generation: 1, previousTraceId: undefined })),
    undefined,
    "no generation before 1",
  );
  assert.equal(
    resolve(4, owner({ generation: 1 })),
    undefined,
    "no generation before 1, even when a previous trace is handed in",
  );
  assert.equal(resolve(4, owner({ previousTraceId: undefined })), undefined, "the previous trace unknown");
  assert.deepEqual(
    resolve(15, owner(), 10_000),
    { ...current, open: false },
    "past its timeout when it began",
  );
  assert.deepEqual(resolve(14.999, owner(), 10_000), { ...current, open: true });
  assert.deepEqual(
    resolve(1_000_000, owner({ startMs: undefined })),
    { ...current, open: true },
    "a start unknown: the current one, never timed out",
  );
  assert.deepEqual(
    resolve(6, owner({ spanId: "op-root", generation: 0, previousTraceId: undefined })),
    { generation: 0, traceId: ownerIds(2).traceId, spanId: "op-root", open: true },
    "an operation's root keeps its own span id",
  );
});
