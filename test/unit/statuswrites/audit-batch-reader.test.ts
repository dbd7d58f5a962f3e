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
