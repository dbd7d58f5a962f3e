import assert from "node:assert/strict";
import { test } from "node:test";
import {
  classifyFailure,
  type FailureReason,
  failureReasons,
  parseStatusPrefix,
  type StatusSummary,
} from "../../../src/statuswrites/classify.ts";
import { docTable } from "../../support/doc-tables.ts";

const classifications: [number, StatusSummary, FailureReason | undefined][] = [
  [200, {}, undefined],
  [201, {}, undefined],
  [409, { reason: "Conflict", message: "the object has been modified" }, "Conflict"],
  [409, {}, "Conflict"],
  [422, { reason: "Invalid", message: 'Widget.example.com "w1" is invalid' }, "Invalid"],
  [422, {}, "Invalid"],
  [403, { reason: "Forbidden", message: 'widgets.example.com "w1" is forbidden' }, "Forbidden"],
  [401, { reason: "Unauthorized" }, "Forbidden"],
  [401, {}, "Forbidden"],
  [404, { reason: "NotFound" }, "NotFound"],
  [404, {}, "NotFound"],
  [429, { reason: "TooManyRequests" }, "TooManyRequests"],
  [429, {}, "TooManyRequests"],
  [504, { reason: "Timeout" }, "Timeout"],
  [500, { reason: "ServerTimeout" }, "Timeout"],
  [408, {}, "Timeout"],
  [500, { reason: "InternalError", message: "etcdserver: request timed out" }, "ServerError"],
  [
    500,
    { reason: "InternalError", message: 'Internal error occurred: failed calling webhook "v.example.com"' },
    "ServerError",
  ],
  [503, {}, "ServerError"],
  [502, {}, "ServerError"],
  // Admission denials keep whatever reason the webhook chose; the message tells them apart.
  [
    403,
    { reason: "", message: 'admission webhook "validate.example.com" denied the request: size too big' },
    "WebhookDenied",
  ],
  [
    400,
    {
      reason: "BadRequest",
      message: 'admission webhook "v.example.com" denied the request without explanation',
    },
    "WebhookDenied",
  ],
  [
    422,
    {
      reason: "Invalid",
      message:
        "widgets.example.com \"w1\" is forbidden: ValidatingAdmissionPolicy 'phase-rules' with binding 'b' denied request: phase",
    },
    "WebhookDenied",
  ],
  [
    413,
    { reason: "RequestEntityTooLarge", message: "Request entity too large: limit is 3145728" },
    "TooLarge",
  ],
  [413, {}, "TooLarge"],
  [400, { reason: "BadRequest" }, "Other"],
  [415, { reason: "UnsupportedMediaType" }, "Other"],
  [405, { reason: "MethodNotAllowed" }, "Other"],
  [0, {}, "Other"],
  // The reason wins over a code that disagrees with it.
  [500, { reason: "Conflict" }, "Conflict"],
];

for (const [code, status, expected] of classifications) {
  test(`classify ${code} ${JSON.stringify(status)} → ${expected ?? "success"}`, () => {
    assert.equal(classifyFailure(code, status), expected);
  });
}

test("parseStatusPrefix reads a whole Status", () => {
  const body = JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: 'Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified',
    reason: "Conflict",
    details: { name: "w1", group: "example.com", kind: "widgets" },
    code: 409,
  });
  assert.deepEqual(parseStatusPrefix(body), {
    reason: "Conflict",
    message: 'Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified',
  });
});

test("parseStatusPrefix reads a Status cut short", () => {
  const body = JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: 'admission webhook "v.example.com" denied the request: a "quoted" thing',
    reason: "Forbidden",
    details: { causes: [{ reason: "FieldValueNotSupported", message: "x".repeat(500) }] },
    code: 403,
  });
  const cut = body.slice(0, body.length - 200);
  const summary = parseStatusPrefix(cut);
  assert.equal(summary.reason, "Forbidden", "the top-level reason, not a cause's");
  assert.equal(summary.message, 'admission webhook "v.example.com" denied the request: a "quoted" thing');
  assert.equal(classifyFailure(403, summary), "WebhookDenied");
});

test("parseStatusPrefix: a message cut mid-way still identifies an admission denial", () => {
  const body =
    '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"admission webhook \\"v.example.com\\" denied the request: aaaa';
  const summary = parseStatusPrefix(body);
  assert.equal(summary.reason, undefined);
  assert.equal(classifyFailure(403, summary), "WebhookDenied");
});

test("parseStatusPrefix ignores bodies that are not a Status", () => {
  assert.deepEqual(parseStatusPrefix(""), {});
  assert.deepEqual(parseStatusPrefix("<html>bad gateway</html>"), {});
  assert.deepEqual(parseStatusPrefix('{"kind":"Widget","reason":"Conflict"}'), {});
  assert.deepEqual(parseStatusPrefix('{"kind":"Widget","status":{"reason":"Confl'), {});
  assert.deepEqual(parseStatusPrefix("null"), {});
  assert.deepEqual(parseStatusPrefix('{"kind":"Status","reason":42}'), {
    reason: undefined,
    message: undefined,
  });
});

// The failure-reason table of docs/status-writes.md, read row by row: every
// Status reason and every HTTP code a row names must classify as that row
// says, so the code and the documented table cannot drift apart.
interface DocumentedReason {
  reason: FailureReason;
  statusReasons: string[];
  codes: number[];
  when: string;
}

function readDocumentedReasons(): DocumentedReason[] {
  return docTable("docs/status-writes.md", /^`reason`$/).rows.map(([name = "", when = ""]) => {
    const reason = name.replaceAll("`", "") as FailureReason;
    const named = /Status reason (.*?), else/.exec(when)?.[1] ?? "";
    const statusReasons = [...named.matchAll(/`(\w+)`/g)].map((m) => m[1] as string);
    const codeText = reason === "Other" ? when : (/else code ([\d/]+)/.exec(when)?.[1] ?? "");
    const codes = [...codeText.matchAll(/\b\d{3}\b/g)].map((m) => Number(m[0]));
    if (/code `0`/.test(when)) codes.push(0);
    return { reason, statusReasons, codes, when };
  });
}

const documentedReasons = readDocumentedReasons();

test("docs/status-writes.md's table lists every failure reason exactly once", () => {
  const listed = documentedReasons.map((r) => r.reason);
  assert.deepEqual([...listed].sort(), [...failureReasons].sort());
});

test("every Status reason the table names classifies as its row, whatever the code says", () => {
  const rows = documentedReasons.filter((r) => r.statusReasons.length > 0);
  assert.equal(rows.length, 8, "8 rows name Status reasons");
  for (const { reason, statusReasons } of rows) {
    for (const statusReason of statusReasons) {
      // 400 alone is Other and 504 alone is Timeout: the reason must win over both.
      for (const code of [400, 504]) {
        assert.equal(classifyFailure(code, { reason: statusReason }), reason, `${code} ${statusReason}`);
      }
    }
  }
});

test("every HTTP code the table names classifies as its row without a Status body", () => {
  const named = new Map<number, FailureReason>();
  for (const { reason, codes } of documentedReasons) for (const code of codes) named.set(code, reason);
  assert.deepEqual(
    [...named.keys()].sort((a, b) => a - b),
    [0, 400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 504],
  );
  for (const [code, reason] of named) assert.equal(classifyFailure(code, {}), reason, `code ${code}`);
  // "any other 5xx" is a ServerError.
  for (let code = 500; code < 600; code++) {
    if (!named.has(code)) assert.equal(classifyFailure(code, {}), "ServerError", `code ${code}`);
  }
});

test("the admission denials the table quotes are WebhookDenied whatever the code and reason", () => {
  const row = documentedReasons.find((r) => r.reason === "WebhookDenied");
  const quoted = [...(row?.when ?? "").matchAll(/`([^`]+)`/g)].map((m) =>
    (m[1] as string).replaceAll("…", "v.example.com"),
  );
  assert.deepEqual(quoted, [
    'admission webhook "v.example.com" denied the request',
    "ValidatingAdmissionPolicy 'v.example.com' v.example.com denied request",
  ]);
  for (const message of quoted) {
    for (const [code, reason] of [
      [400, "BadRequest"],
      [403, "Forbidden"],
      [422, "Invalid"],
      [500, "InternalError"],
    ] as const) {
      assert.equal(classifyFailure(code, { reason, message: `${message}: no` }), "WebhookDenied");
    }
  }
});

test("parseStatusPrefix reads a pretty-printed Status cut short, spaces around its colons", () => {
  const cut =
    '{\n  "kind" : "Status",\n  "apiVersion": "v1",\n  "reason" :\t"Conflict",\n  "message":  "a \\"quoted\\" name and \\\\ more';
  assert.deepEqual(parseStatusPrefix(cut), { reason: "Conflict", message: 'a "quoted" name and \\\\ more' });
  assert.deepEqual(parseStatusPrefix('{"kind":"Status","reason":"Not-A-Word","message":'), {
    reason: undefined,
    message: undefined,
  });
  assert.deepEqual(parseStatusPrefix('{"kind":"Widget","reason":"Conflict","message":"x'), {});
});

test("codes from 200 to 399 are not failures; 0 and 400 up are", () => {
  for (const code of [200, 204, 301, 399]) assert.equal(classifyFailure(code), undefined, `${code}`);
  assert.equal(classifyFailure(400), "Other");
  assert.equal(classifyFailure(499), "Other");
  assert.equal(classifyFailure(600), "ServerError");
});
