// The pure parts of a collector: which objects have a usable uid, and the
// per-scope list handler — listed objects applied (other shards' passed over,
// malformed ones skipped), the objects a finished list did not return swept,
// and what a list broken off saw never saving an object from the next sweep.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ScopeCallbacks, scopeHandler, uidOf } from "../../src/collectors/collector-parts.ts";

const obj = (uid: string) => ({ metadata: { uid } });

/** Callbacks that hold `held` and record what the handler asks for; uids starting with "theirs" are another shard's. */
function recording(held: string[]) {
  const calls: string[] = [];
  const on: ScopeCallbacks = {
    ours: (raw) => !(uidOf(raw) ?? "").startsWith("theirs"),
    apply: (raw) => {
      const uid = uidOf(raw);
      if (uid === undefined) throw new Error("no uid");
      calls.push(`apply ${uid}`);
      return uid;
    },
    skipped: (error) => calls.push(`skipped ${(error as Error).message}`),
    heldIn: () => held,
    remove: (uid) => calls.push(`remove ${uid}`),
    listFinished: () => calls.push("listFinished"),
    event: (type, raw) => calls.push(`event ${type} ${uidOf(raw)}`),
  };
  return { on, calls };
}

test("uidOf: a non-empty string uid only", () => {
  assert.equal(uidOf(obj("u1")), "u1");
  assert.equal(uidOf(obj("")), undefined, "an empty uid is no identity");
  assert.equal(uidOf({ metadata: { uid: 7 } }), undefined);
  assert.equal(uidOf({ metadata: {} }), undefined);
  assert.equal(uidOf(null), undefined);
});

test("a finished list applies what it returned, skips what has no uid, passes over other shards', and sweeps the rest", () => {
  const { on, calls } = recording(["a", "gone", "gone-too"]);
  const handler = scopeHandler("ns1", on);
  handler.listStarted("initial");
  handler.listed(obj("a"));
  handler.listed({ metadata: {} });
  handler.listed(obj("theirs-1"));
  handler.listed(obj("b"));
  handler.listFinished();
  assert.deepEqual(calls, [
    "apply a",
    "skipped no uid",
    "apply b",
    "remove gone",
    "remove gone-too",
    "listFinished",
  ]);
});

test("a list started again forgets what the list broken off saw", () => {
  const { on, calls } = recording(["a", "b"]);
  const handler = scopeHandler("", on);
  handler.listStarted("initial");
  handler.listed(obj("a"));
  // The list fails half-way; the next one no longer returns a.
  handler.listStarted("error");
  handler.listed(obj("b"));
  handler.listFinished();
  assert.deepEqual(calls, ["apply a", "apply b", "remove a", "listFinished"]);
});

test("each finished list sweeps against its own objects only", () => {
  const { on, calls } = recording(["a"]);
  const handler = scopeHandler("", on);
  handler.listStarted("initial");
  handler.listed(obj("a"));
  handler.listFinished();
  calls.length = 0;
  handler.listFinished();
  assert.deepEqual(calls, ["remove a", "listFinished"]);
});

test("watch events are handed on as they come", () => {
  const { on, calls } = recording([]);
  const handler = scopeHandler("", on);
  handler.event("ADDED", obj("a"));
  handler.event("DELETED", obj("theirs-1"));
  assert.deepEqual(calls, ["event ADDED a", "event DELETED theirs-1"]);
});
