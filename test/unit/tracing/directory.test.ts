// The directory of traced objects (src/tracing/directory.ts), as tables of
// plain values: which objects it enters and forgets, which owner and source a
// child finds there, and each parent as a join target — its generation, when
// that began and settled (server times only), and the trace its roots are in
// (its own, a request's, or its own parent's while that was open).
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultReadinessRules, type ReadinessRules } from "../../../src/core/judge/readiness.ts";
import type { ObjectRefs, ObjectState, ResourceIdentity } from "../../../src/core/state.ts";
import { type JoinRules, noJoinRules, TraceDirectory } from "../../../src/tracing/directory.ts";
import { operationTraceKey, spanIdOf, traceIdOf } from "../../../src/tracing/ids.ts";
import type { JoinTarget } from "../../../src/tracing/joins.ts";
import { at, cluster, condition, generationIds, object, sprockets, T, widgets } from "./support.ts";

const rules = defaultReadinessRules;
const hour = 3_600_000;

const configMaps: ResourceIdentity = {
  group: "",
  version: "v1",
  kind: "ConfigMap",
  resource: "configmaps",
  namespaced: true,
};

const ownerRef = (uid: string, apiVersion = "example.com/v1", kind = "Sprocket"): ObjectRefs["owner"] => ({
  uid,
  apiVersion,
  kind,
  name: uid,
});

/** A Sprocket `uid` at generation 1, created at T + `created`, with `fields` over that. */
const sprocket = (uid: string, created: number, fields: Partial<ObjectState> = {}): ObjectState =>
  object({
    uid,
    name: uid,
    creationTimestamp: T + created,
    specChangedAt: T + created,
    ...fields,
  });

const childOf = (refs: ObjectRefs, fields: Partial<ObjectState> = {}): ObjectState =>
  object({ uid: "child", name: "child", refs, ...fields });

const own = (uid: string, generation: number): string => generationIds(generation, uid).traceId;

function directoryWith(
  entries: {
    resource?: ResourceIdentity;
    statusSubresource?: boolean;
    readiness?: ReadinessRules;
    joinRules?: JoinRules;
    object: ObjectState;
    traced?: string;
  }[],
  timeoutMs = hour,
): TraceDirectory {
  const directory = new TraceDirectory(cluster, timeoutMs);
  for (const e of entries) {
    directory.note(
      e.resource ?? sprockets,
      e.statusSubresource ?? true,
      e.readiness ?? rules,
      e.joinRules ?? noJoinRules,
      e.object,
      e.traced,
      at(100),
    );
  }
  return directory;
}

/** The owner target a child owned by `uid` finds. */
const ownerTarget = (directory: TraceDirectory, uid: string): JoinTarget | undefined =>
  directory.joinsOf(childOf({ owner: ownerRef(uid) }), noJoinRules)?.owner;

test("the directory enters objects with generation roots or a running operation, and forgets them", () => {
  const directory = new TraceDirectory(cluster, hour);
  const note = (o: ObjectState, statusSubresource = true) =>
    directory.note(sprockets, statusSubresource, rules, noJoinRules, o, undefined, at(100));
  note(sprocket("a", 0));
  assert.equal(directory.size, 1, "generation 1 with a status subresource");
  note(sprocket("b", 0), false);
  assert.equal(directory.size, 1, "no status subresource and no operation: no roots to join");
  note(sprocket("c", 0, { generation: 0 }));
  note(sprocket("d", 0, { generation: undefined }));
  assert.equal(directory.size, 1, "no generation (or 0): no generation roots");
  note(sprocket("e", 0, { refs: { operation: { startedAt: T + 5 } } }), false);
  assert.equal(directory.size, 2, "a running operation is a root to join");
  note(sprocket("a", 0), false);
  assert.equal(directory.size, 1, "an entered object that has no roots any more is forgotten");
  assert.equal(ownerTarget(directory, "a"), undefined);
  directory.forget("e");
  directory.forget("never-seen");
  assert.equal(directory.size, 0);
});

test("a child finds its controller owner by uid when the owner reference names the kind the owner was entered as", () => {
  const directory = directoryWith([
    { object: sprocket("owner", 5, { generation: 2, creationTimestamp: T, specChangedAt: T + 5 }) },
    { resource: configMaps, object: sprocket("cm", 0) },
    { resource: widgets, object: childOf({ owner: ownerRef("child", "example.com/v1", "Widget") }) },
  ]);
  const wanted: JoinTarget = {
    uid: "owner",
    kind: "Sprocket",
    generation: 2,
    startMs: at(5),
    settledAtMs: undefined,
    traceId: own("owner", 2),
    previousTraceId: own("owner", 1),
  };
  const rulesOwner: JoinRules = { parent: "owner", source: undefined };
  assert.deepEqual(directory.joinsOf(childOf({ owner: ownerRef("owner") }, {}), rulesOwner), {
    parent: "owner",
    owner: wanted,
    source: undefined,
    traceContext: undefined,
  });
  const rows: { name: string; refs: ObjectRefs; found: string | undefined }[] = [
    { name: "another group", refs: { owner: ownerRef("owner", "other.io/v1") }, found: undefined },
    {
      name: "another kind",
      refs: { owner: ownerRef("owner", "example.com/v1", "Gadget") },
      found: undefined,
    },
    {
      name: "another version of the group",
      refs: { owner: ownerRef("owner", "example.com/v2") },
      found: "owner",
    },
    {
      name: "the core group (apiVersion v1)",
      refs: { owner: ownerRef("cm", "v1", "ConfigMap") },
      found: "cm",
    },
    {
      name: "the core group named as a group",
      refs: { owner: ownerRef("cm", "x/v1", "ConfigMap") },
      found: undefined,
    },
    { name: "an owner not entered", refs: { owner: ownerRef("stranger") }, found: undefined },
    {
      name: "itself (an owner reference to its own uid)",
      refs: { owner: ownerRef("child", "example.com/v1", "Widget") },
      found: undefined,
    },
  ];
  for (const row of rows) {
    const joins = directory.joinsOf(childOf(row.refs), rulesOwner);
    assert.equal(joins?.owner?.uid, row.found, row.name);
  }
  assert.equal(directory.joinsOf(object({ uid: "child" }), rulesOwner), undefined, "no references: no joins");
  assert.deepEqual(
    directory.joinsOf(childOf({ traceContext: "00-x" }), noJoinRules),
    { parent: undefined, owner: undefined, source: undefined, traceContext: "00-x" },
    "the trace-context annotation is handed on as given",
  );
});

test("a child finds its source by namespace and name, as the kind tracing.source names", () => {
  const sourceRules: JoinRules = { parent: "source", source: { group: "example.com", kind: "Sprocket" } };
  const directory = directoryWith([
    { object: sprocket("src-uid", 0, { namespace: "ns", name: "src" }) },
    { resource: widgets, object: sprocket("w-uid", 0, { namespace: "ns", name: "w" }) },
  ]);
  const rows: { name: string; refs: ObjectRefs; joinRules?: JoinRules; found: string | undefined }[] = [
    { name: "by name", refs: { source: { namespace: "ns", name: "src" } }, found: "src-uid" },
    {
      name: "by name, the kind named as configured",
      refs: { source: { namespace: "ns", name: "src", kind: "Sprocket" } },
      found: "src-uid",
    },
    {
      name: "another kind named",
      refs: { source: { namespace: "ns", name: "src", kind: "Gadget" } },
      found: undefined,
    },
    { name: "another namespace", refs: { source: { namespace: "other", name: "src" } }, found: undefined },
    { name: "another name", refs: { source: { namespace: "ns", name: "w" } }, found: undefined },
    {
      name: "no tracing.source configured",
      refs: { source: { namespace: "ns", name: "src" } },
      joinRules: noJoinRules,
      found: undefined,
    },
    {
      name: "the kind tracing.source names decides which object the name is looked up among",
      refs: { source: { namespace: "ns", name: "w" } },
      joinRules: { parent: "source", source: { group: "example.com", kind: "Widget" } },
      found: "w-uid",
    },
  ];
  for (const row of rows) {
    const joins = directory.joinsOf(childOf(row.refs), row.joinRules ?? sourceRules);
    assert.equal(joins?.source?.uid, row.found, row.name);
    assert.equal(joins?.parent, (row.joinRules ?? sourceRules).parent, `${row.name}: parent`);
  }
  const self = object({
    uid: "src-uid",
    namespace: "ns",
    name: "src",
    refs: { source: { namespace: "ns", name: "src" } },
  });
  assert.equal(directory.joinsOf(self, sourceRules)?.source, undefined, "never its own source");
});

test("a source found by name follows renames, and forgetting one uid leaves a name another holds", () => {
  const sourceRules: JoinRules = { parent: "source", source: { group: "example.com", kind: "Sprocket" } };
  const sourceNamed = (directory: TraceDirectory, name: string) =>
    directory.joinsOf(childOf({ source: { namespace: "ns", name } }), sourceRules)?.source?.uid;
  const directory = directoryWith([{ object: sprocket("s1", 0, { name: "old" }) }]);
  directory.note(sprockets, true, rules, noJoinRules, sprocket("s1", 0, { name: "new" }), undefined, at(100));
  assert.equal(sourceNamed(directory, "old"), undefined, "the old name is let go");
  assert.equal(sourceNamed(directory, "new"), "s1");
  assert.equal(directory.size, 1);

  // s2 takes the name "new" (s1 recreated under another uid, say): forgetting s1 leaves s2 under it.
  directory.note(sprockets, true, rules, noJoinRules, sprocket("s2", 0, { name: "new" }), undefined, at(100));
  directory.forget("s1");
  assert.equal(sourceNamed(directory, "new"), "s2");
  directory.forget("s2");
  assert.equal(sourceNamed(directory, "new"), undefined);
});

test("a parent's generation began at its creation or spec change, and settled when its ready condition turned True after that", () => {
  const readyAt = (seconds: number, fields: Partial<ReturnType<typeof condition>> = {}) => ({
    observedGeneration: 1,
    conditions: [{ ...condition("Ready", "True", seconds, "", "", 1), ...fields }],
  });
  const rows: {
    name: string;
    object: ObjectState;
    readiness?: ReadinessRules;
    startMs: number | undefined;
    settledAtMs: number | undefined;
  }[] = [
    {
      name: "open (no ready condition yet)",
      object: sprocket("p", 5),
      startMs: at(5),
      settledAtMs: undefined,
    },
    {
      name: "Ready True after the start",
      object: sprocket("p", 5, readyAt(9)),
      startMs: at(5),
      settledAtMs: at(9),
    },
    {
      name: "Ready True in the very millisecond it began",
      object: sprocket("p", 5, readyAt(5)),
      startMs: at(5),
      settledAtMs: at(5),
    },
    {
      name: "Ready True since before the start: a time of another generation",
      object: sprocket("p", 5, readyAt(4)),
      startMs: at(5),
      settledAtMs: undefined,
    },
    {
      name: "Ready True with no lastTransitionTime: no server time to settle at",
      object: sprocket("p", 5, readyAt(9, { lastTransitionTime: undefined, sinceSource: "first_seen" })),
      startMs: at(5),
      settledAtMs: undefined,
    },
    {
      name: "Ready False",
      object: sprocket("p", 5, { observedGeneration: 1, conditions: [condition("Ready", "False", 9)] }),
      startMs: at(5),
      settledAtMs: undefined,
    },
    {
      name: "Ready True but the generation not observed yet",
      object: sprocket("p", 5, {
        ...readyAt(9),
        observedGeneration: 0,
        conditions: [condition("Ready", "True", 9)],
      }),
      startMs: at(5),
      settledAtMs: undefined,
    },
    {
      name: "a later generation with no spec-change time: start unknown, settled at Ready",
      object: sprocket("p", 5, {
        generation: 2,
        specChangedAt: undefined,
        observedGeneration: 2,
        conditions: [condition("Ready", "True", 9, "", "", 2)],
      }),
      startMs: undefined,
      settledAtMs: at(9),
    },
    {
      name: "a kind without a ready condition: never settled by one",
      object: sprocket("p", 5, readyAt(9)),
      readiness: { ...rules, readyCondition: undefined },
      startMs: at(5),
      settledAtMs: undefined,
    },
  ];
  for (const row of rows) {
    const directory = directoryWith([
      { object: row.object, ...(row.readiness !== undefined && { readiness: row.readiness }) },
    ]);
    const target = ownerTarget(directory, "p");
    assert.equal(target?.startMs, row.startMs, `${row.name}: start`);
    assert.equal(target?.settledAtMs, row.settledAtMs, `${row.name}: settled`);
  }
});

test("a parent's roots are in the trace it joined, a request's, or its own; the previous generation's likewise", () => {
  const request = "0af7651916cd43dd8448eb211c80319c";
  const traceparent = `00-${request}-b7ad6b7169203331-01`;
  const rows: {
    name: string;
    object: ObjectState;
    traced?: string;
    traceId: string;
    previous: string | undefined;
  }[] = [
    { name: "generation 1, its own", object: sprocket("p", 5), traceId: own("p", 1), previous: undefined },
    {
      name: "generation 3, its own; the previous generation's own",
      object: sprocket("p", 5, { generation: 3 }),
      traceId: own("p", 3),
      previous: own("p", 2),
    },
    {
      name: "the trace this process joined it to",
      object: sprocket("p", 5, { generation: 2 }),
      traced: "1234567890abcdef1234567890abcdef",
      traceId: "1234567890abcdef1234567890abcdef",
      previous: own("p", 1),
    },
    {
      name: "a request's trace (the current generation only)",
      object: sprocket("p", 5, { generation: 2, refs: { traceContext: traceparent } }),
      traceId: request,
      previous: own("p", 1),
    },
    {
      name: "a malformed trace context: its own",
      object: sprocket("p", 5, { generation: 2, refs: { traceContext: "00-nonsense" } }),
      traceId: own("p", 2),
      previous: own("p", 1),
    },
  ];
  for (const row of rows) {
    const directory = directoryWith([{ object: row.object, ...(row.traced && { traced: row.traced }) }]);
    const target = ownerTarget(directory, "p");
    assert.equal(target?.traceId, row.traceId, `${row.name}: trace`);
    assert.equal(target?.previousTraceId, row.previous, `${row.name}: previous trace`);
    assert.equal(target?.spanId, undefined, `${row.name}: a generation root (span id from the generation)`);
  }
});

test("a parent traced by operations is its current operation's root, from startedAt to finishedAt", () => {
  const key = operationTraceKey(cluster, "app", T + 12);
  const rows: {
    name: string;
    operation: { startedAt: number; finishedAt?: number };
    settledAtMs: number | undefined;
  }[] = [
    { name: "running", operation: { startedAt: T + 12 }, settledAtMs: undefined },
    { name: "finished", operation: { startedAt: T + 12, finishedAt: T + 19 }, settledAtMs: at(19) },
  ];
  for (const row of rows) {
    const app = sprocket("app", 0, { generation: 40, refs: { operation: row.operation } });
    const directory = directoryWith([
      { object: app, statusSubresource: false, traced: "ffffffffffffffffffffffffffffffff" },
    ]);
    assert.deepEqual(
      ownerTarget(directory, "app"),
      {
        uid: "app",
        kind: "Sprocket",
        generation: 0,
        startMs: at(12),
        settledAtMs: row.settledAtMs,
        traceId: traceIdOf(key),
        previousTraceId: undefined,
        spanId: spanIdOf(key, "root"),
      },
      row.name,
    );
  }
  // With a status subresource the same object has generation roots; its operation is not read.
  const withStatus = directoryWith([
    { object: sprocket("app", 3, { refs: { operation: { startedAt: T + 12 } } }) },
  ]);
  const target = ownerTarget(withStatus, "app");
  assert.equal(target?.traceId, own("app", 1));
  assert.equal(target?.spanId, undefined);
  assert.equal(target?.startMs, at(3));
});

test("a parent that joins its own owner or source is in that one's trace while it was open when the parent began", () => {
  const byOwner: JoinRules = { parent: "owner", source: undefined };
  const bySource: JoinRules = { parent: "source", source: { group: "example.com", kind: "Widget" } };
  const top = (fields: Partial<ObjectState> = {}) =>
    object({ uid: "top", name: "top", creationTimestamp: T, specChangedAt: T, ...fields });
  const middle = (fields: Partial<ObjectState> = {}) =>
    sprocket("mid", 10, { refs: { owner: ownerRef("top", "example.com/v1", "Widget") }, ...fields });
  const rows: {
    name: string;
    top?: ObjectState;
    middle: ObjectState;
    joinRules: JoinRules;
    timeoutMs?: number;
    traceId: string;
    previous?: string | undefined;
  }[] = [
    { name: "owner open then", middle: middle(), joinRules: byOwner, traceId: own("top", 1) },
    {
      name: "owner settled before it began",
      top: top({ observedGeneration: 1, conditions: [condition("Ready", "True", 8, "", "", 1)] }),
      middle: middle(),
      joinRules: byOwner,
      traceId: own("mid", 1),
    },
    {
      name: "owner past its timeout when it began",
      middle: middle(),
      joinRules: byOwner,
      timeoutMs: 10_000,
      traceId: own("mid", 1),
    },
    {
      name: "owner open until just before the timeout",
      middle: middle(),
      joinRules: byOwner,
      timeoutMs: 10_001,
      traceId: own("top", 1),
    },
    { name: "no tracing.parent: its own", middle: middle(), joinRules: noJoinRules, traceId: own("mid", 1) },
    {
      name: "an owner not entered (gone, or never seen)",
      middle: middle({ refs: { owner: ownerRef("gone", "example.com/v1", "Widget") } }),
      joinRules: byOwner,
      traceId: own("mid", 1),
    },
    {
      name: "a source not entered",
      middle: middle({ refs: { source: { namespace: "ns", name: "gone" } } }),
      joinRules: bySource,
      traceId: own("mid", 1),
    },
    {
      name: "tracing.parent: source, but no source named",
      middle: middle(),
      joinRules: bySource,
      traceId: own("mid", 1),
    },
    {
      name: "the owner reference names another kind",
      middle: middle({ refs: { owner: ownerRef("top", "example.com/v1", "Gadget") } }),
      joinRules: byOwner,
      traceId: own("mid", 1),
    },
    {
      name: "source open then",
      middle: middle({ refs: { source: { namespace: "ns", name: "top" } } }),
      joinRules: bySource,
      traceId: own("top", 1),
    },
    {
      name: "tracing.source without tracing.parent: its own, though its source was open",
      middle: middle({ refs: { source: { namespace: "ns", name: "top" } } }),
      joinRules: { parent: undefined, source: bySource.source },
      traceId: own("mid", 1),
    },
    {
      name: "its source reference names another kind than tracing.source",
      middle: middle({ refs: { source: { namespace: "ns", name: "top", kind: "Gadget" } } }),
      joinRules: bySource,
      traceId: own("mid", 1),
    },
    {
      name: "its source reference names the kind tracing.source names",
      middle: middle({ refs: { source: { namespace: "ns", name: "top", kind: "Widget" } } }),
      joinRules: bySource,
      traceId: own("top", 1),
    },
    {
      name: "its start unknown: its own",
      middle: middle({ generation: 2, specChangedAt: undefined }),
      joinRules: byOwner,
      traceId: own("mid", 2),
      previous: own("mid", 1),
    },
    {
      name: "generation 2 began at T+10: generation 1 was in force just before, under the open owner",
      middle: middle({ generation: 2 }),
      joinRules: byOwner,
      traceId: own("top", 1),
      previous: own("top", 1),
    },
    {
      name: "generation 2 began when the owner began: generation 1 was before the owner",
      top: top({ creationTimestamp: T + 10, specChangedAt: T + 10 }),
      middle: middle({ generation: 2 }),
      joinRules: byOwner,
      traceId: own("top", 1),
      previous: own("mid", 1),
    },
  ];
  for (const row of rows) {
    const directory = directoryWith(
      [
        { resource: widgets, object: row.top ?? top() },
        { object: row.middle, joinRules: row.joinRules },
      ],
      row.timeoutMs,
    );
    const target = ownerTarget(directory, "mid");
    assert.equal(target?.traceId, row.traceId, `${row.name}: trace`);
    assert.equal(target?.previousTraceId, row.previous, `${row.name}: previous trace`);
  }
});

test("owner chains are followed eight deep, no further", () => {
  const byOwner: JoinRules = { parent: "owner", source: undefined };
  // o0 is owned by o1, o1 by o2, … o11 by none; each began a second after its owner, all still open.
  const entries = Array.from({ length: 12 }, (_, i) => ({
    object: sprocket(`o${i}`, 11 - i, i < 11 ? { refs: { owner: ownerRef(`o${i + 1}`) } } : {}),
    joinRules: byOwner,
  }));
  const directory = directoryWith(entries);
  assert.equal(ownerTarget(directory, "o0")?.traceId, own("o8", 1), "o0 → o1 … → o8, where the walk stops");
  assert.equal(ownerTarget(directory, "o4")?.traceId, own("o11", 1), "o4 reaches the top in 7 steps");
  assert.equal(ownerTarget(directory, "o3")?.traceId, own("o11", 1), "o3 reaches the top in 8 steps");
  assert.equal(ownerTarget(directory, "o2")?.traceId, own("o10", 1), "o2 stops one short of it");
});
