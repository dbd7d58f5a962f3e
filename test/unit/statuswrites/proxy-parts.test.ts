import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { createStatusWriteMetrics } from "../../../src/statuswrites/metrics.ts";
import { BoundedPrefix } from "../../../src/statuswrites/proxy/bounded-prefix.ts";
import { endToEndHeaders, headerValue } from "../../../src/statuswrites/proxy/headers.ts";

test("BoundedPrefix keeps only the first bytes", () => {
  const prefix = new BoundedPrefix(10);
  prefix.add(Buffer.from("hello "));
  prefix.add(Buffer.from("world, and more"));
  prefix.add(Buffer.from("ignored"));
  assert.equal(prefix.text(), "hello worl");
  assert.equal(prefix.size, 10);
});

test("end-to-end headers pass, hop-by-hop and Connection-listed headers do not", () => {
  const headers = endToEndHeaders([
    "Authorization",
    "Bearer abc",
    "Host",
    "127.0.0.1:8001",
    "Connection",
    "keep-alive, X-Drop-Me",
    "Keep-Alive",
    "timeout=5",
    "X-Drop-Me",
    "1",
    "Transfer-Encoding",
    "chunked",
    "Warning",
    '299 - "first"',
    "warning",
    '299 - "second"',
    "Content-Type",
    "application/json",
  ]);
  assert.deepEqual(headers, {
    Authorization: "Bearer abc",
    Warning: ['299 - "first"', '299 - "second"'],
    "Content-Type": "application/json",
  });
});

test("metrics: one observation updates requests, failures and duration; users are capped", async () => {
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry, "cr_", { maxUsers: 1 });
  const base = {
    group: "example.com",
    kind: "Widget",
    namespace: "ns1",
    verb: "update",
    durationSeconds: 0.02,
  };
  metrics.record({ ...base, source: "audit", code: 409, failure: "Conflict", user: "alice" });
  metrics.record({ ...base, source: "audit", code: 200, failure: undefined, user: "bob" });
  metrics.record({ ...base, source: "proxy", code: 200, failure: undefined });
  const text = await registry.metrics();
  assert.match(
    text,
    /cr_status_update_requests_total\{group="example.com",kind="Widget",namespace="ns1",verb="update",code="409",source="audit"\} 1/,
  );
  assert.match(
    text,
    /cr_status_update_requests_total\{group="example.com",kind="Widget",namespace="ns1",verb="update",code="200",source="audit"\} 1/,
  );
  assert.match(
    text,
    /cr_status_update_requests_total\{group="example.com",kind="Widget",namespace="ns1",verb="update",code="200",source="proxy"\} 1/,
  );
  assert.match(
    text,
    /cr_status_update_failures_total\{group="example.com",kind="Widget",namespace="ns1",reason="Conflict",source="audit"\} 1/,
  );
  assert.doesNotMatch(text, /cr_status_update_failures_total\{[^}]*source="proxy"/);
  assert.match(
    text,
    /cr_status_update_request_duration_seconds_count\{group="example.com",kind="Widget",verb="update",source="audit"\} 2/,
  );
  assert.match(
    text,
    /cr_status_update_requests_by_user_total\{user="alice",group="example.com",kind="Widget",code="409"\} 1/,
  );
  assert.match(
    text,
    /cr_status_update_requests_by_user_total\{user="other",group="example.com",kind="Widget",code="200"\} 1/,
  );
  assert.doesNotMatch(text, /user="bob"/);
});

test("metrics honour the prefix", async () => {
  const registry = new Registry();
  createStatusWriteMetrics(registry, "acme_").record({
    source: "proxy",
    group: "g",
    kind: "K",
    namespace: "",
    verb: "patch",
    code: 200,
    failure: undefined,
    durationSeconds: undefined,
  });
  const text = await registry.metrics();
  assert.match(text, /^acme_status_update_requests_total\{/m);
  assert.doesNotMatch(text, /cr_status/);
});

test("BoundedPrefix: a chunk that fills it exactly is kept whole, and nothing after it", () => {
  const prefix = new BoundedPrefix(5);
  prefix.add(Buffer.from("ab"));
  prefix.add(Buffer.from("cde"));
  prefix.add(Buffer.from("f"));
  assert.equal(prefix.text(), "abcde");
  assert.equal(prefix.size, 5);
  assert.equal(prefix.limit, 5);
  const none = new BoundedPrefix(0);
  none.add(Buffer.from("x"));
  assert.equal(none.text(), "");
  assert.equal(none.size, 0);
});

test("BoundedPrefix copies a cut chunk, so later changes to the chunk do not reach it", () => {
  const prefix = new BoundedPrefix(3);
  const chunk = Buffer.from("abcdef");
  prefix.add(chunk);
  chunk.write("XYZ");
  assert.equal(prefix.text(), "abc");
});

test("headerValue finds the first value of a header whatever its case; endToEndHeaders ignores a dangling name", () => {
  const raw = ["Content-Type", "application/json", "content-type", "text/plain", "X-Odd"];
  assert.equal(headerValue(raw, "content-type"), "application/json");
  assert.equal(headerValue(raw, "content-length"), undefined);
  assert.equal(headerValue(raw, "x-odd"), undefined, "a name without a value");
  assert.deepEqual(endToEndHeaders(raw), { "Content-Type": ["application/json", "text/plain"] });
  assert.deepEqual(
    endToEndHeaders([
      "connection",
      " X-A ,x-b",
      "X-A",
      "1",
      "X-B",
      "2",
      "X-C",
      "3",
      "TE",
      "trailers",
      "Proxy-Authorization",
      "p",
      "Upgrade",
      "h2c",
      "Trailer",
      "t",
      "Proxy-Connection",
      "k",
      "Proxy-Authenticate",
      "a",
    ]),
    { "X-C": "3" },
  );
});
