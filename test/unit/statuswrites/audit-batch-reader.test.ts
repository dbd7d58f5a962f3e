// The streaming batch reader keeps status writes grouped by what their labels
// come from, classified on the way, and rejects a batch that is not an
// EventList as a whole, whatever the chunks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AuditBatchReader } from "../../../src/statuswrites/audit/audit-batch-reader.ts";
import { AuditPayloadError } from "../../../src/statuswrites/audit/audit-events.ts";

const limits = { maxItemBytes: 1 << 20, maxMemberBytes: 64 * 1024 };

function write(name: string, code: number, extra: Record<string, unknown> = {}) {
  return {
    stage: "ResponseComplete",
    verb: "patch",
    user: { username: "controller" },
    objectRef: {
      resource: "widgets",
      namespace: "ns1",
      name,
      apiGroup: "example.com",
      apiVersion: "v1",
      subresource: "status",
    },
    responseStatus: { code },
    requestReceivedTimestamp: "2026-05-01T10:00:00.000000Z",
    stageTimestamp: "2026-05-01T10:00:00.020000Z",
    ...extra,
  };
}

function read(body: unknown, chunk = 7) {
  const bytes = Buffer.from(JSON.stringify(body));
  const reader = new AuditBatchReader(limits);
  for (let at = 0; at < bytes.length; at += chunk) reader.write(bytes.subarray(at, at + chunk));
  return reader.end();
}

test("writes differing only in object name and duration share a group; failures are classified on the way", () => {
  const summary = read({
    kind: "EventList",
    apiVersion: "audit.k8s.io/v1",
    items: [
      write("w1", 200),
      write("w2", 200, { stageTimestamp: undefined }),
      write("w3", 409, {
        responseStatus: {
          code: 409,
          reason: "Conflict",
          message: 'Operation cannot be fulfilled on widgets.example.com "w3"',
        },
      }),
      { stage: "ResponseComplete", verb: "get", objectRef: { resource: "widgets" } },
      "not an event",
    ],
  });
  assert.equal(summary.events, 5);
  assert.equal(summary.writes, 3);
  assert.equal(summary.malformed, 1);
  assert.equal(summary.groups.length, 2);
  const [ok, conflict] = summary.groups;
  assert.deepEqual(
    { ...ok, durations: ok?.durations.map((d) => (Number.isNaN(d) ? "unknown" : d)) },
    {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      namespace: "ns1",
      verb: "patch",
      code: 200,
      failure: undefined,
      user: "controller",
      durations: [0.02, "unknown"],
    },
  );
  assert.equal(conflict?.failure, "Conflict");
  assert.equal(JSON.stringify(summary).includes("Operation cannot"), false, "messages are not kept");
});

test("a batch that is not an EventList is rejected at its end, nothing kept", () => {
  for (const body of [
    { kind: "Event", apiVersion: "audit.k8s.io/v1", items: [write("w1", 200)] },
    { kind: "EventList", apiVersion: "audit.k8s.io/v2", items: [] },
    { kind: "EventList", apiVersion: "audit.k8s.io/v1", items: "nope" },
    { kind: "EventList", apiVersion: "audit.k8s.io/v1" },
  ]) {
    assert.throws(() => read(body), AuditPayloadError, JSON.stringify(body));
  }
});

test("the envelope may come after the items", () => {
  const summary = read({ items: [write("w1", 200)], apiVersion: "audit.k8s.io/v1", kind: "EventList" }, 3);
  assert.equal(summary.writes, 1);
});

test("writes differing in any one of group, version, resource, namespace, verb, code, outcome or user are kept apart", () => {
  const base = write("w", 500);
  const ref = base.objectRef;
  const items = [
    base,
    { ...base, objectRef: { ...ref, apiGroup: "other.example" } },
    { ...base, objectRef: { ...ref, apiVersion: "v2" } },
    { ...base, objectRef: { ...ref, resource: "gadgets" } },
    { ...base, objectRef: { ...ref, namespace: "ns2" } },
    { ...base, verb: "update" },
    { ...base, responseStatus: { code: 503 } },
    { ...base, responseStatus: { code: 500, reason: "Timeout" } },
    { ...base, user: { username: "someone-else" } },
    write("w-again", 500),
  ];
  const summary = read({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items });
  assert.equal(summary.writes, 10);
  assert.equal(summary.groups.length, 9);
  assert.deepEqual(
    summary.groups.map((g) => [
      g.group,
      g.version,
      g.resource,
      g.namespace,
      g.verb,
      g.code,
      g.failure,
      g.user,
      g.durations,
    ]),
    [
      ["example.com", "v1", "widgets", "ns1", "patch", 500, "ServerError", "controller", [0.02, 0.02]],
      ["other.example", "v1", "widgets", "ns1", "patch", 500, "ServerError", "controller", [0.02]],
      ["example.com", "v2", "widgets", "ns1", "patch", 500, "ServerError", "controller", [0.02]],
      ["example.com", "v1", "gadgets", "ns1", "patch", 500, "ServerError", "controller", [0.02]],
      ["example.com", "v1", "widgets", "ns2", "patch", 500, "ServerError", "controller", [0.02]],
      ["example.com", "v1", "widgets", "ns1", "update", 500, "ServerError", "controller", [0.02]],
      ["example.com", "v1", "widgets", "ns1", "patch", 503, "ServerError", "controller", [0.02]],
      ["example.com", "v1", "widgets", "ns1", "patch", 500, "Timeout", "controller", [0.02]],
      ["example.com", "v1", "widgets", "ns1", "patch", 500, "ServerError", "someone-else", [0.02]],
    ],
  );
});

test("the bytes held are those of the event being read; the envelope members are checked at the end", () => {
  const reader = new AuditBatchReader(limits);
  reader.write(Buffer.from('{"kind":"EventList","items":[{"stage":"Resp'));
  assert.equal(reader.heldBytes, Buffer.byteLength(`{"stage":"Resp`));
  reader.write(Buffer.from('onseComplete"}],"apiVersion":"audit.k8s.io/v1"}'));
  assert.equal(reader.heldBytes, 0);
  assert.deepEqual(reader.end(), { groups: [], writes: 0, events: 1, malformed: 1 });
  const noItems = new AuditBatchReader(limits);
  noItems.write(Buffer.from('{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":{"a":1}}'));
  assert.throws(() => noItems.end(), { message: "audit payload: items must be an array" });
});
