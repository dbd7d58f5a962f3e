import assert from "node:assert/strict";
import { test } from "node:test";
import { AuditPayloadError, parseAuditEventList } from "../../../src/statuswrites/audit/audit-events.ts";

function event(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: "0b8f0f0e-0000-4000-8000-000000000000",
    stage: "ResponseComplete",
    requestURI: "/apis/example.com/v1/namespaces/ns1/widgets/w1/status",
    verb: "patch",
    user: { username: "system:serviceaccount:ops:widget-controller", groups: ["system:serviceaccounts"] },
    objectRef: {
      resource: "widgets",
      namespace: "ns1",
      name: "w1",
      apiGroup: "example.com",
      apiVersion: "v1",
      subresource: "status",
    },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: "2026-05-01T10:00:00.100000Z",
    stageTimestamp: "2026-05-01T10:00:00.125500Z",
    ...overrides,
  };
}

function list(items: unknown[]): Record<string, unknown> {
  return { kind: "EventList", apiVersion: "audit.k8s.io/v1", metadata: {}, items };
}

test("a successful status patch", () => {
  const batch = parseAuditEventList(list([event()]));
  assert.equal(batch.events, 1);
  assert.equal(batch.malformed, 0);
  assert.deepEqual(batch.writes, [
    {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      namespace: "ns1",
      name: "w1",
      verb: "patch",
      code: 200,
      status: { reason: undefined, message: undefined },
      user: "system:serviceaccount:ops:widget-controller",
      durationSeconds: 0.025,
    },
  ]);
});

test("a failed update keeps the Status reason and message", () => {
  const batch = parseAuditEventList(
    list([
      event({
        verb: "update",
        responseStatus: {
          metadata: {},
          status: "Failure",
          reason: "Conflict",
          message: "the object has been modified",
          code: 409,
        },
      }),
    ]),
  );
  assert.equal(batch.writes[0]?.code, 409);
  assert.deepEqual(batch.writes[0]?.status, { reason: "Conflict", message: "the object has been modified" });
});

test("the impersonated user is the writer", () => {
  const batch = parseAuditEventList(
    list([
      event({ user: { username: "admin" }, impersonatedUser: { username: "system:serviceaccount:a:b" } }),
    ]),
  );
  assert.equal(batch.writes[0]?.user, "system:serviceaccount:a:b");
});

test("a Panic stage counts as 500; cluster-scoped objects have an empty namespace", () => {
  const objectRef = {
    resource: "gadgets",
    name: "g1",
    apiGroup: "example.com",
    apiVersion: "v1",
    subresource: "status",
  };
  const batch = parseAuditEventList(list([event({ stage: "Panic", objectRef, responseStatus: undefined })]));
  assert.equal(batch.writes[0]?.code, 500);
  assert.equal(batch.writes[0]?.namespace, "");
});

test("other events are ignored without being called malformed", () => {
  const batch = parseAuditEventList(
    list([
      event({ stage: "RequestReceived", responseStatus: undefined }),
      event({ stage: "ResponseStarted" }),
      event({ verb: "get" }),
      event({ verb: "watch" }),
      event({
        objectRef: {
          resource: "widgets",
          namespace: "ns1",
          name: "w1",
          apiGroup: "example.com",
          apiVersion: "v1",
        },
      }),
      event({ objectRef: undefined, requestURI: "/healthz", verb: "get" }),
    ]),
  );
  assert.equal(batch.events, 6);
  assert.equal(batch.malformed, 0);
  assert.deepEqual(batch.writes, []);
});

test("malformed events are skipped and counted, the rest of the batch is kept", () => {
  const batch = parseAuditEventList(
    list([
      null,
      "text",
      42,
      event({ stage: undefined }),
      event({ verb: 7 }),
      event({ objectRef: "widgets" }),
      event({ responseStatus: { code: "200" } }),
      event({ responseStatus: undefined }),
      event({ user: undefined }),
      event({ objectRef: { subresource: "status" } }),
      event(),
    ]),
  );
  assert.equal(batch.events, 11);
  assert.equal(batch.malformed, 10);
  assert.equal(batch.writes.length, 1);
});

test("missing or unordered timestamps give no duration", () => {
  const [a, b] = parseAuditEventList(
    list([
      event({ stageTimestamp: undefined }),
      event({ requestReceivedTimestamp: "2026-05-01T10:00:01Z", stageTimestamp: "2026-05-01T10:00:00Z" }),
    ]),
  ).writes;
  assert.equal(a?.durationSeconds, undefined);
  assert.equal(b?.durationSeconds, undefined);
});

const rejected: [string, unknown][] = [
  ["null", null],
  ["an array", []],
  ["a string", "EventList"],
  ["a single Event", event()],
  ["another apiVersion", { ...list([]), apiVersion: "audit.k8s.io/v1beta1" }],
  ["items that are not an array", { ...list([]), items: { a: 1 } }],
  ["no items", { kind: "EventList", apiVersion: "audit.k8s.io/v1" }],
];

for (const [what, body] of rejected) {
  test(`a batch that is ${what} is rejected with a clear error`, () => {
    assert.throws(
      () => parseAuditEventList(body),
      (error: unknown) => error instanceof AuditPayloadError && error.message.startsWith("audit payload:"),
    );
  });
}

test("an empty EventList is fine", () => {
  assert.deepEqual(parseAuditEventList(list([])), { writes: [], events: 0, malformed: 0 });
});

test("a core-group write without apiGroup, apiVersion, namespace or name reads them as empty", () => {
  const batch = parseAuditEventList(
    list([event({ objectRef: { resource: "pods", subresource: "status" } })]),
  );
  assert.deepEqual(batch.writes[0], {
    group: "",
    version: "",
    resource: "pods",
    namespace: "",
    name: "",
    verb: "patch",
    code: 200,
    status: { reason: undefined, message: undefined },
    user: "system:serviceaccount:ops:widget-controller",
    durationSeconds: 0.025,
  });
});

test("an impersonated user without a name, or not an object, leaves the authenticated user as the writer", () => {
  for (const impersonatedUser of [{ username: "" }, { username: 5 }, "admin", null]) {
    const batch = parseAuditEventList(list([event({ user: { username: "alice" }, impersonatedUser })]));
    assert.equal(batch.writes[0]?.user, "alice", JSON.stringify(impersonatedUser));
  }
  const nameless = parseAuditEventList(list([event({ user: { username: 5 } }), event({ user: "alice" })]));
  assert.equal(nameless.malformed, 2, "a user without a string name, or not an object, is malformed");
});

test("a code that is not a whole number is malformed; a Failure Status message that is not text is dropped", () => {
  const batch = parseAuditEventList(
    list([
      event({ responseStatus: { code: 200.5 } }),
      event({ responseStatus: "200" }),
      event({ responseStatus: { code: 409, reason: 7, message: ["x"] } }),
    ]),
  );
  assert.equal(batch.malformed, 2);
  assert.deepEqual(batch.writes[0]?.status, { reason: undefined, message: undefined });
  assert.equal(batch.writes[0]?.code, 409);
});

test("equal timestamps are a duration of 0; timestamps that are not text or not dates give none", () => {
  const [same, numbers, garbage] = parseAuditEventList(
    list([
      event({ requestReceivedTimestamp: "2026-05-01T10:00:00Z", stageTimestamp: "2026-05-01T10:00:00Z" }),
      event({ requestReceivedTimestamp: 0, stageTimestamp: 5 }),
      event({ requestReceivedTimestamp: "yesterday", stageTimestamp: "2026-05-01T10:00:00Z" }),
    ]),
  ).writes;
  assert.equal(same?.durationSeconds, 0);
  assert.equal(numbers?.durationSeconds, undefined);
  assert.equal(garbage?.durationSeconds, undefined);
});

test("every write verb on status counts; a create, delete and deletecollection too", () => {
  const verbs = ["create", "update", "patch", "delete", "deletecollection"];
  const batch = parseAuditEventList(list(verbs.map((verb) => event({ verb }))));
  assert.deepEqual(
    batch.writes.map((w) => w.verb),
    verbs,
  );
});

test("the envelope errors say what was expected and what came", () => {
  assert.throws(() => parseAuditEventList({ ...list([]), kind: "Event" }), {
    message: 'audit payload: kind must be EventList, got "Event"',
  });
  assert.throws(() => parseAuditEventList({ ...list([]), apiVersion: "v1" }), {
    message: 'audit payload: apiVersion must be audit.k8s.io/v1, got "v1"',
  });
  assert.throws(() => parseAuditEventList({ ...list([]), items: 5 }), {
    message: "audit payload: items must be an array",
  });
  assert.throws(() => parseAuditEventList([]), { message: "audit payload: expected a JSON object" });
});
