// Operation roots (tracing.operation), as tables of plain values: an Argo CD
// Application (state fields, no status subresource) whose controller writes
// status.operationState.startedAt / finishedAt / phase. One `Application
// operation` root per operation, keyed by startedAt (same ids whenever a
// process starts watching), ended by finishedAt; without a readable startedAt,
// degraded roots as before; children naming the Application as source join
// the operation's root while it runs, and only link to it once it ended.
import assert from "node:assert/strict";
import { test } from "node:test";
import { projectRefs } from "../../../src/core/project/refs.ts";
import type { ObjectState, OperationTimes, ResourceIdentity, StateValue } from "../../../src/core/state.ts";
import * as attr from "../../../src/tracing/attributes.ts";
import { TraceDirectory } from "../../../src/tracing/directory.ts";
import { degradedTraceKey, operationTraceKey, spanIdOf, traceIdOf } from "../../../src/tracing/ids.ts";
import {
  type Joins,
  type ObjectTraceState,
  plannerSettings,
  type SpanPlan,
} from "../../../src/tracing/planner/model.ts";
import { planObservation } from "../../../src/tracing/planner/plan.ts";
import type { ObjectObservation } from "../../../src/tracing/state-tracer.ts";
import { argoReadiness } from "../../support/state-fields.ts";
import { at, cluster, condition, generationIds, iso, object, T, widgets } from "./support.ts";

const settings = plannerSettings(cluster);

const applications: ResourceIdentity = {
  group: "argoproj.io",
  version: "v1alpha1",
  kind: "Application",
  resource: "applications",
  namespaced: true,
};

const s = (name: string, value: string, since: number): StateValue => ({
  name,
  value,
  since: T + since,
  sinceSource: "first_seen",
});

/** The Application at a moment: its health and sync, and its operation (seconds after T). */
function app(
  health: string,
  sync: string,
  operation?: { startedAt: number; finishedAt?: number; phase?: string },
): ObjectState {
  const times: OperationTimes | undefined = operation && {
    startedAt: T + operation.startedAt,
    ...(operation.finishedAt !== undefined && { finishedAt: T + operation.finishedAt }),
    ...(operation.phase !== undefined && { phase: operation.phase }),
  };
  return object({
    uid: "app-uid",
    namespace: "argocd",
    name: "guestbook",
    generation: 40,
    states: [s("health", health, 0), s("sync", sync, 0)],
    ...(times && { refs: { operation: times } }),
  });
}

function observeApp(
  state: ObjectTraceState | undefined,
  previous: ObjectState | undefined,
  current: ObjectState | undefined,
  now: number,
) {
  const o: ObjectObservation = {
    resource: applications,
    statusSubresource: false,
    readiness: argoReadiness,
    previous,
    current,
    nowMs: at(now),
    replay: false,
  };
  return planObservation(settings, state, o);
}

/** Feeds the observations in order (the first as a first sight), returning every span and the last state. */
function feed(observations: { now: number; object: ObjectState | undefined }[]) {
  let state: ObjectTraceState | undefined;
  let previous: ObjectState | undefined;
  const spans: SpanPlan[] = [];
  for (const { now, object: current } of observations) {
    const result = observeApp(state, previous, current, now);
    state = result.state;
    previous = current;
    spans.push(...result.spans);
  }
  return { spans, state };
}

const opIds = (startedAt: number) => {
  const key = operationTraceKey(cluster, "app-uid", T + startedAt);
  return { traceId: traceIdOf(key), root: spanIdOf(key, "root") };
};

const roots = (spans: SpanPlan[]) => spans.filter((span) => span.parentSpanId === undefined);

/** A sync as Argo CD writes it: an earlier operation over, OutOfSync, started at T+12, Running, Succeeded at T+19. */
const sync = [
  { now: 0, object: app("Healthy", "Synced", { startedAt: -100, finishedAt: -90, phase: "Succeeded" }) },
  { now: 10, object: app("Healthy", "OutOfSync", { startedAt: -100, finishedAt: -90, phase: "Succeeded" }) },
  { now: 13, object: app("Healthy", "OutOfSync", { startedAt: 12, phase: "Running" }) },
  { now: 16, object: app("Progressing", "Synced", { startedAt: 12, phase: "Running" }) },
  { now: 21, object: app("Progressing", "Synced", { startedAt: 12, finishedAt: 19, phase: "Succeeded" }) },
  { now: 30, object: app("Healthy", "Synced", { startedAt: 12, finishedAt: 19, phase: "Succeeded" }) },
];

test("one root per operation, keyed by startedAt, from startedAt to finishedAt (server times)", () => {
  const { spans, state } = feed(sync);
  const [root, ...more] = roots(spans);
  assert.equal(more.length, 0, `one root: ${roots(spans).map((r) => r.name)}`);
  assert.ok(root);
  assert.equal(root.name, "Application operation");
  assert.equal(root.traceId, opIds(12).traceId);
  assert.equal(root.spanId, opIds(12).root);
  assert.equal(root.startMs, at(12));
  assert.equal(root.endMs, at(19));
  assert.deepEqual(root.status, { code: "ok" });
  assert.equal(root.attributes[attr.OUTCOME], "succeeded");
  assert.equal(root.attributes[attr.START_SOURCE], "operation");
  assert.equal(root.attributes[attr.END_SOURCE], "operation");
  assert.equal(root.attributes[attr.OPERATION_STARTED_AT], iso(12));
  assert.equal(root.attributes[attr.OPERATION_PHASE], "Succeeded");
  assert.ok(
    spans.filter((span) => span !== root).every((span) => span.traceId === root.traceId),
    "the stand-in Ready interval is a child of the operation's root",
  );
  assert.equal(state?.open, undefined, "nothing open once it finished");
  assert.equal(state?.closedOperationAt, T + 12);
});

test("a process that starts watching mid-sync (a restart, a new leader, another shard) emits the same root", () => {
  const table = [
    { name: "from the start", from: 0 },
    { name: "first seen OutOfSync before the operation", from: 1 },
    { name: "first seen Running", from: 2 },
    { name: "first seen Running, later", from: 3 },
  ];
  const rootOf = (from: number) => {
    const root = roots(feed(sync.slice(from)).spans)[0];
    assert.ok(root, `a root when first seen at step ${from}`);
    const { traceId, spanId, startMs, endMs, name, status } = root;
    return { traceId, spanId, startMs, endMs, name, status, outcome: root.attributes[attr.OUTCOME] };
  };
  const expected = rootOf(0);
  for (const row of table) assert.deepEqual(rootOf(row.from), expected, row.name);
  assert.deepEqual(feed(sync.slice(4)).spans, [], "first seen finished: emitted by whoever saw it run");
});

test("how an operation root ends: finishedAt by phase, a new startedAt, deletion, fields gone", () => {
  const running = app("Progressing", "Synced", { startedAt: 12, phase: "Running" });
  const table: {
    name: string;
    next: ObjectState | undefined;
    end: number;
    outcome: string;
    status: SpanPlan["status"];
    opens?: number;
  }[] = [
    {
      name: "Succeeded",
      next: app("Healthy", "Synced", { startedAt: 12, finishedAt: 19, phase: "Succeeded" }),
      end: 19,
      outcome: "succeeded",
      status: { code: "ok" },
    },
    {
      name: "Failed: error.type is the phase",
      next: app("Degraded", "OutOfSync", { startedAt: 12, finishedAt: 18, phase: "Failed" }),
      end: 18,
      outcome: "failed",
      status: { code: "error", message: "Failed" },
    },
    {
      name: "Error",
      next: app("Degraded", "OutOfSync", { startedAt: 12, finishedAt: 18, phase: "Error" }),
      end: 18,
      outcome: "failed",
      status: { code: "error", message: "Error" },
    },
    {
      name: "a new sync (its finish missed): superseded at the new startedAt, which opens a new root",
      next: app("Progressing", "OutOfSync", { startedAt: 25, phase: "Running" }),
      end: 25,
      outcome: "superseded",
      status: { code: "unset" },
      opens: 25,
    },
    { name: "deleted", next: undefined, end: 40, outcome: "deleted", status: { code: "unset" } },
    {
      name: "operationState gone: ended now, degraded roots again",
      next: app("Progressing", "Synced"),
      end: 40,
      outcome: "superseded",
      status: { code: "unset" },
    },
  ];
  for (const row of table) {
    const opened = observeApp(undefined, undefined, running, 14);
    const result = observeApp(opened.state, running, row.next, 40);
    const root = roots(result.spans).find((span) => span.spanId === opIds(12).root);
    assert.ok(root, row.name);
    assert.equal(root.endMs, at(row.end), row.name);
    assert.equal(root.attributes[attr.OUTCOME], row.outcome, row.name);
    assert.deepEqual(root.status, row.status, row.name);
    const open = result.state?.open;
    if (row.opens === undefined) assert.notEqual(open?.kind, "operation", `${row.name}: none open`);
    else assert.equal(open?.rootSpanId, opIds(row.opens).root, `${row.name}: the new one open`);
  }
});

test("without a readable startedAt: degraded roots, as for any state-judged kind", () => {
  const { spans } = feed([
    { now: 0, object: app("Healthy", "Synced") },
    { now: 2, object: app("Healthy", "OutOfSync") },
    { now: 7, object: app("Healthy", "Synced") },
  ]);
  const [root] = roots(spans);
  assert.equal(root?.name, "Application degraded");
  const key = degradedTraceKey(cluster, "app-uid", "Ready", `observed:${at(0)}|False`);
  assert.equal(root?.traceId, traceIdOf(key), "keyed by the exporter's clock, as before");
});

test("a degraded root open when the first operation starts ends there: superseded at startedAt", () => {
  const { spans, state } = feed([
    { now: 0, object: app("Healthy", "Synced") },
    { now: 2, object: app("Healthy", "OutOfSync") },
    { now: 6, object: app("Healthy", "OutOfSync", { startedAt: 5, phase: "Running" }) },
  ]);
  const [degraded] = roots(spans);
  assert.equal(degraded?.name, "Application degraded");
  assert.equal(degraded?.endMs, at(5));
  assert.equal(degraded?.attributes[attr.OUTCOME], "superseded");
  assert.equal(state?.open?.rootSpanId, opIds(5).root);
});

test("an operation past the timeout when first seen opens nothing", () => {
  const late = app("Progressing", "Synced", { startedAt: 12, phase: "Running" });
  const result = observeApp(undefined, undefined, late, 12 + settings.timeoutMs / 1000);
  assert.deepEqual(result.spans, []);
  assert.equal(result.state?.open, undefined);
});

test("the projection reads the operation only when startedAt is a time; a finish before the start is no finish", () => {
  const paths = {
    startedAt: ["status", "operationState", "startedAt"],
    finishedAt: ["status", "operationState", "finishedAt"],
    phase: ["status", "operationState", "phase"],
  };
  const read = (operationState: unknown) =>
    projectRefs({ status: { operationState } }, {}, "argocd", {
      owner: false,
      traceContextAnnotation: undefined,
      source: undefined,
      operation: paths,
    })?.operation;
  const table: { name: string; given: unknown; want: OperationTimes | undefined }[] = [
    {
      name: "running",
      given: { startedAt: iso(12), phase: "Running" },
      want: { startedAt: T + 12, phase: "Running" },
    },
    {
      name: "finished",
      given: { startedAt: iso(12), finishedAt: iso(19), phase: "Succeeded" },
      want: { startedAt: T + 12, finishedAt: T + 19, phase: "Succeeded" },
    },
    {
      name: "a finish before the start",
      given: { startedAt: iso(12), finishedAt: iso(3), phase: "Running" },
      want: { startedAt: T + 12, phase: "Running" },
    },
    { name: "startedAt missing", given: { phase: "Running" }, want: undefined },
    { name: "startedAt malformed", given: { startedAt: "yesterday", phase: "Running" }, want: undefined },
    { name: "startedAt not a string", given: { startedAt: 12 }, want: undefined },
    { name: "no operationState", given: undefined, want: undefined },
  ];
  for (const row of table) assert.deepEqual(read(row.given), row.want, row.name);
});

// Joins: a Widget whose source is the Application (Argo CD's tracking label).
const joinRules = { parent: "source" as const, source: { group: "argoproj.io", kind: "Application" } };

/** A child created at T + `created`, Ready False, naming the Application as its source. */
const child = (created: number) =>
  object({
    creationTimestamp: T + created,
    specChangedAt: T + created,
    conditions: [condition("Ready", "False", created)],
    refs: { source: { namespace: "argocd", name: "guestbook" } },
  });

function childRoot(appState: ObjectState, created: number, parent: "source" | undefined) {
  const directory = new TraceDirectory(cluster, settings.timeoutMs);
  directory.note(
    applications,
    false,
    argoReadiness,
    { parent: undefined, source: undefined },
    appState,
    undefined,
    at(50),
  );
  const rules = { ...joinRules, parent };
  const joins: Joins | undefined = directory.joinsOf(child(created), rules);
  const o: ObjectObservation = {
    resource: widgets,
    statusSubresource: true,
    readiness: { ...argoReadiness, readyCondition: "Ready", states: [] },
    previous: undefined,
    current: child(created),
    nowMs: at(created + 1),
    replay: true,
    joins,
  };
  return planObservation(settings, undefined, o).state?.open;
}

test("a child naming the Application as source joins the operation open when its generation began", () => {
  const running = app("Progressing", "Synced", { startedAt: 12, phase: "Running" });
  const finished = app("Healthy", "Synced", { startedAt: 12, finishedAt: 19, phase: "Succeeded" });
  const own = generationIds(1);
  const sourceLink = (ended: boolean) => ({
    traceId: opIds(12).traceId,
    spanId: opIds(12).root,
    attributes: {
      [attr.LINK_REASON]: "source",
      [attr.LINK_KIND]: "Application",
      ...(ended && { [attr.LINK_ENDED]: true }),
    },
  });
  const table: {
    name: string;
    app: ObjectState;
    created: number;
    parent?: "source" | undefined;
    traceId: string;
    parentSpanId: string | undefined;
    links: unknown[];
  }[] = [
    {
      name: "created while the sync runs: a child of the operation's root",
      app: running,
      created: 14,
      traceId: opIds(12).traceId,
      parentSpanId: opIds(12).root,
      links: [],
    },
    {
      name: "the same child resumed after the sync finished (a restart): the same parent",
      app: finished,
      created: 14,
      traceId: opIds(12).traceId,
      parentSpanId: opIds(12).root,
      links: [],
    },
    {
      name: "created in the second the sync finished: still open",
      app: finished,
      created: 19,
      traceId: opIds(12).traceId,
      parentSpanId: opIds(12).root,
      links: [],
    },
    {
      name: "created after the sync finished: only a link, marked ended",
      app: finished,
      created: 25,
      traceId: own.traceId,
      parentSpanId: undefined,
      links: [sourceLink(true)],
    },
    {
      name: "without tracing.parent: a link to the running operation",
      app: running,
      created: 14,
      parent: undefined,
      traceId: own.traceId,
      parentSpanId: undefined,
      links: [sourceLink(false)],
    },
    {
      name: "created before the operation started (no earlier operation is known): nothing",
      app: running,
      created: 8,
      traceId: own.traceId,
      parentSpanId: undefined,
      links: [],
    },
    {
      name: "the Application reports no operation: no join target",
      app: app("Progressing", "Synced"),
      created: 14,
      traceId: own.traceId,
      parentSpanId: undefined,
      links: [],
    },
  ];
  for (const row of table) {
    const root = childRoot(row.app, row.created, "parent" in row ? row.parent : "source");
    assert.ok(root, row.name);
    assert.equal(root.traceId, row.traceId, `${row.name}: trace`);
    assert.equal(root.parentSpanId, row.parentSpanId, `${row.name}: parent`);
    assert.deepEqual(root.links, row.links, `${row.name}: links`);
  }
});
