// Warning events, pure and through a collector: what is kept of an event;
// occurrences counted once (a new event, a higher count, the same count
// again, a delete, a relist, a restart that finds history); the memory's cap;
// the per-kind reason bound; and the object's latest warning and per-object
// counter in its store entry.
import assert from "node:assert/strict";
import { test } from "node:test";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import { applyChange, applyWarning, type KindSettings } from "../../src/core/change/object-update.ts";
import {
  EventMemory,
  projectWarningEvent,
  ReasonBound,
  type WarningEvent,
  warningMessageChars,
} from "../../src/core/events/warning-event.ts";
import { slotOf } from "../../src/core/series/catalog.ts";
import { fromByteString } from "../../src/core/series/exposition.ts";
import { kindSettings } from "../support/kind-settings.ts";
import { slotLines } from "../support/series.ts";

const START = Date.parse("2026-01-01T00:00:00Z") / 1000;
/** A MicroTime (eventTime), or with `micro` false the API's whole-second form (creationTimestamp). */
const iso = (seconds: number, micro = true): string => {
  const text = new Date(seconds * 1000).toISOString();
  return micro ? text.replace("Z", "000Z") : text.replace(/\.\d+Z$/, "Z");
};

function rawEvent(init: {
  uid?: string;
  reason?: string;
  note?: string;
  count?: number;
  at?: number;
  lastAt?: number;
  type?: string;
  kind?: string;
  apiVersion?: string;
}): Record<string, unknown> {
  const at = init.at ?? START + 10;
  return {
    metadata: { uid: init.uid ?? "e1", creationTimestamp: iso(Math.floor(at), false) },
    type: init.type ?? "Warning",
    reason: init.reason ?? "BackOff",
    note: init.note ?? "back-off restarting",
    eventTime: iso(at),
    regarding: {
      apiVersion: init.apiVersion ?? "example.com/v1",
      kind: init.kind ?? "Widget",
      namespace: "ns1",
      name: "w1",
      uid: "u1",
    },
    ...(init.count !== undefined && {
      series: { count: init.count, lastObservedTime: iso(init.lastAt ?? at + init.count) },
    }),
  };
}

const event = (init: Parameters<typeof rawEvent>[0]): WarningEvent =>
  projectWarningEvent(rawEvent(init)) as WarningEvent;

test("an event is kept as its regarding object, reason, cut message, count and times; other events are not", () => {
  const e = event({ count: 3, note: "x".repeat(1000), at: START + 1.5 });
  assert.deepEqual(e.regarding, {
    group: "example.com",
    kind: "Widget",
    namespace: "ns1",
    name: "w1",
    uid: "u1",
  });
  assert.equal(e.reason, "BackOff");
  assert.equal(e.message.length, warningMessageChars);
  assert.equal(e.count, 3);
  assert.equal(e.firstAt, START + 1.5, "eventTime keeps its fraction");
  assert.equal(e.lastAt, START + 4.5);
  assert.equal(projectWarningEvent(rawEvent({ type: "Normal" })), undefined);
  assert.equal(projectWarningEvent({ type: "Warning", metadata: { uid: "x" } }), undefined, "no regarding");
  assert.equal(event({ apiVersion: "v1", kind: "Pod" }).regarding.group, "");
  // Written through core/v1: deprecatedCount and the second-precision timestamps.
  const core = projectWarningEvent({
    metadata: { uid: "c1", creationTimestamp: "2026-01-01T00:00:05Z" },
    type: "Warning",
    reason: "Failed",
    regarding: { apiVersion: "example.com/v1", kind: "Widget", name: "w" },
    deprecatedCount: 7,
    deprecatedFirstTimestamp: "2026-01-01T00:00:01Z",
    deprecatedLastTimestamp: "2026-01-01T00:00:09Z",
  });
  assert.deepEqual([core?.count, core?.firstAt, core?.lastAt], [7, START + 1, START + 9]);
});

test("occurrences: a new event whole, a higher count by its increase, the same count again nothing", () => {
  const memory = new EventMemory(START);
  assert.equal(memory.occurrences(event({}), ""), 1, "created after the start: its first occurrence");
  assert.equal(memory.occurrences(event({ count: 4 }), ""), 3);
  assert.equal(memory.occurrences(event({ count: 4, lastAt: START + 99 }), ""), 0, "same count, newer time");
  assert.equal(memory.occurrences(event({ count: 2 }), ""), 0, "a lower count takes nothing back");
  assert.equal(memory.occurrences(event({ count: 5 }), ""), 1, "counted from the highest seen");
  assert.equal(memory.size, 1);
});

test("a deleted event keeps what it counted; the same uid again is a new event only if it began after the start", () => {
  const memory = new EventMemory(START);
  memory.occurrences(event({ count: 3 }), "");
  memory.forget("e1");
  assert.equal(memory.size, 0);
  // A watch that saw nothing meanwhile cannot tell: an event begun after the start is counted whole.
  assert.equal(memory.occurrences(event({ uid: "e2", count: 2 }), ""), 2);
});

test("history is not counted: an event begun before the start is remembered at its count, then its increases count", () => {
  const memory = new EventMemory(START);
  assert.equal(memory.occurrences(event({ count: 40, at: START - 3600 }), ""), 0);
  assert.equal(memory.occurrences(event({ count: 42, at: START - 3600 }), ""), 2);
  // Began in the start's second, just before it: history (eventTime has microseconds).
  assert.equal(memory.occurrences(event({ uid: "e2", at: START - 0.2 }), ""), 0);
  assert.equal(memory.occurrences(event({ uid: "e3", at: START + 0.2 }), ""), 1);
});

test("a restarted exporter counts nothing the previous one counted: its list finds history only", () => {
  const first = new EventMemory(START);
  const seen = [event({ uid: "a", count: 5 }), event({ uid: "b" })];
  assert.equal(
    seen.reduce((n, e) => n + first.occurrences(e, ""), 0),
    6,
  );
  const second = new EventMemory(START + 600);
  assert.equal(
    seen.reduce((n, e) => n + second.occurrences(e, ""), 0),
    0,
    "the same events listed after the restart",
  );
  assert.equal(second.occurrences(event({ uid: "a", count: 6 }), ""), 1, "only what happened since");
});

test("a relist counts what was added meanwhile; events it no longer returns are forgotten, per scope", () => {
  const memory = new EventMemory(START);
  memory.occurrences(event({ uid: "a", count: 2 }), "ns1");
  memory.occurrences(event({ uid: "b" }), "ns1");
  memory.occurrences(event({ uid: "c" }), "ns2");
  // The relist of ns1: a grew by 3 while the watch was down, b expired, d is new.
  let added = memory.occurrences(event({ uid: "a", count: 5 }), "ns1");
  added += memory.occurrences(event({ uid: "d" }), "ns1");
  memory.sweep("ns1", new Set(["a", "d"]));
  assert.equal(added, 4);
  assert.equal(memory.size, 3, "a, d and ns2's c");
  memory.sweep("ns2", new Set());
  assert.equal(memory.size, 2);
});

test("past the cap the least recently updated is forgotten, and unknown events begun by then are not counted again", () => {
  const memory = new EventMemory(START, 2);
  memory.occurrences(event({ uid: "a", at: START + 1 }), "");
  memory.occurrences(event({ uid: "b", at: START + 2 }), "");
  memory.occurrences(event({ uid: "a", at: START + 1, count: 2 }), "");
  memory.occurrences(event({ uid: "c", at: START + 3 }), "");
  assert.equal(memory.size, 2, "b forgotten");
  assert.equal(
    memory.occurrences(event({ uid: "b", at: START + 2, count: 3 }), ""),
    0,
    "b may have been counted",
  );
  assert.equal(memory.occurrences(event({ uid: "d", at: START + 9 }), ""), 1, "a new event still counts");
});

test("reasons: the first maxReasons as themselves, later ones other, kept for good; a larger limit makes room", () => {
  const bound = new ReasonBound(2);
  assert.deepEqual(
    ["A", "B", "C", "A", "other", "D"].map((r) => bound.label(r)),
    ["A", "B", "other", "A", "other", "other"],
  );
  bound.limit = 3;
  assert.equal(bound.label("D"), "D");
  assert.equal(bound.label("E"), "other");
});

function kindWith(perObject: boolean): KindSettings {
  return kindSettings({}, [], (1 << slotOf.status) | (perObject ? 1 << slotOf.objectWarningEvents : 0));
}

const widget = (resourceVersion: string, status: string) => ({
  metadata: { name: "w1", namespace: "ns1", uid: "u1", resourceVersion, generation: 1 },
  status: { conditions: [{ type: "Ready", status, lastTransitionTime: "2026-01-01T00:00:00Z" }] },
});

test("an object keeps its newest warning (not an older one) through later changes; counted per object when selected", () => {
  const kind = kindWith(true);
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
  let entry = applyChange(undefined, widget("1", "False"), kind, learning, START).entry;
  entry = applyWarning(entry, kind, event({ reason: "BackOff", count: 2, at: START + 10 }), "BackOff", 2);
  entry = applyWarning(entry, kind, event({ uid: "old", reason: "Old", at: START - 99 }), "Old", 0);
  assert.deepEqual(entry.warning, { reason: "BackOff", message: "back-off restarting", at: START + 12 });
  const same = applyWarning(
    entry,
    kind,
    event({ reason: "BackOff", count: 2, at: START + 10 }),
    "BackOff",
    0,
  );
  assert.equal(same, entry, "nothing new: the same entry");
  entry = applyWarning(entry, kind, event({ uid: "e2", reason: "Failed", at: START + 20 }), "other", 1);
  entry = applyChange(entry, widget("2", "True"), kind, learning, START + 30).entry;
  assert.equal(entry.warning?.reason, "Failed", "kept through a status change");
  assert.deepEqual(
    fromByteString(slotLines(entry.series, slotOf.objectWarningEvents)).trimEnd().split("\n"),
    [
      'cr_object_warning_events_total{group="example.com",kind="Widget",namespace="ns1",name="w1",reason="BackOff"} 2',
      'cr_object_warning_events_total{group="example.com",kind="Widget",namespace="ns1",name="w1",reason="other"} 1',
    ],
  );
  // Not selected: the latest warning only, no per-object counts kept.
  const plain = kindWith(false);
  const other = applyWarning(
    applyChange(undefined, widget("1", "False"), plain, learning, START).entry,
    plain,
    event({ count: 3 }),
    "BackOff",
    3,
  );
  assert.equal(other.counters.warnings, undefined);
  assert.equal(other.warning?.reason, "BackOff");
});
