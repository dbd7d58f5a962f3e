// The koa routes over a fixed source: status codes, content types, the
// security headers and JSON errors a client relies on.
import assert from "node:assert/strict";
import { get } from "node:http";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { defaultStatusPage } from "../../../src/config/status-page.ts";
import { statusFleet } from "../../support/status-fleet.ts";
import { serveStatus } from "../../support/status-server.ts";
import { fixedSource } from "../../support/views.ts";

const cases: [string, string, number, RegExp, Record<string, RegExp>][] = [
  [
    "GET",
    "/",
    200,
    /^text\/html; charset=utf-8$/,
    { "content-security-policy": /^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+'/ },
  ],
  ["GET", "/?limit=0", 400, /^text\/html/, { "content-security-policy": /script-src 'sha256-/ }],
  // A continue token that does not decode is found only when the query runs: still the page, not JSON.
  ["GET", "/?continue=bad", 400, /^text\/html/, { "content-security-policy": /script-src 'sha256-/ }],
  ["GET", "/api/v1/objects?continue=bad", 400, /^application\/json/, {}],
  [
    "GET",
    "/api/v1/objects",
    200,
    /^application\/json/,
    { "x-content-type-options": /^nosniff$/, "cache-control": /^no-store$/ },
  ],
  ["GET", "/api/v1/objects?sort=size", 400, /^application\/json/, {}],
  ["GET", "/api/v1/objects/uid-shop-stuck-widget", 200, /^application\/json/, {}],
  ["GET", "/api/v1/objects/uid-shop-stuck-widget?verbose=1", 400, /^application\/json/, {}],
  ["GET", "/api/v1/objects/%E0%A4%A", 400, /^application\/json/, {}],
  ["GET", "/api/v1/objects/no-such-uid", 404, /^application\/json/, {}],
  ["GET", "/api/v1/summary?namespace=shop", 200, /^application\/json/, {}],
  ["GET", "/api/v2/objects", 404, /^application\/json/, {}],
  ["POST", "/api/v1/objects", 405, /^application\/json/, { allow: /^GET, HEAD$/ }],
  ["HEAD", "/", 200, /^text\/html/, {}],
  ["GET", "/favicon.ico", 204, /^$/, {}],
  ["GET", "/metrics", 404, /^text\/plain/, {}],
];

for (const [method, path, status, type, headers] of cases) {
  test(`${method} ${path} → ${status}`, async (t) => {
    const base = await serveStatus(t, fixedSource(statusFleet()));
    const response = await fetch(`${base}${path}`, { method });
    const body = await response.text();
    assert.equal(response.status, status, body);
    assert.match(response.headers.get("content-type") ?? "", type);
    for (const [name, value] of Object.entries(headers))
      assert.match(response.headers.get(name) ?? "", value, name);
    if (status >= 400 && type.source.includes("json")) {
      const error = (JSON.parse(body) as { error: { status: number; message: string } }).error;
      assert.equal(error.status, status);
      assert.ok(error.message.length > 0);
    }
  });
}

test("a 400 names the parameter, the value and what was expected", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  const response = await fetch(`${base}/api/v1/objects?limit=9999`);
  assert.deepEqual(await response.json(), {
    error: {
      status: 400,
      message: 'query parameter limit="9999": expected an integer from 1 to 500',
      parameter: "limit",
      value: "9999",
      expected: "an integer from 1 to 500",
    },
  });
});

test("the page shows a bad continue token's message on the page", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  const body = await (await fetch(`${base}/?continue=bad`)).text();
  assert.match(body, /query parameter continue=(&quot;|")bad(&quot;|"): expected a token/);
});

test("the settings are read per request, so a reload applies at once", async (t) => {
  let traceUrl: string | undefined;
  const base = await serveStatus(t, fixedSource(statusFleet()), () => ({ ...defaultStatusPage, traceUrl }));
  const trace = async () => {
    const response = await fetch(`${base}/api/v1/objects/uid-shop-stuck-widget`);
    return ((await response.json()) as { object: { links: { trace: string | null } } }).object.links.trace;
  };
  assert.equal(await trace(), null);
  traceUrl = "http://127.0.0.1:16686/trace/{traceId}";
  assert.equal(await trace(), "http://127.0.0.1:16686/trace/4bf92f3577b34da6a3ce929d0e0e4736");
});

/** A GET with exactly these headers (fetch always asks for gzip and decodes it). */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      get(url, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (c: Buffer) => chunks.push(c));
        response.on("end", () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
      }).once("error", reject);
    },
  );
}

test("the page and the API are gzipped for clients that accept it, small answers are not", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  for (const path of ["/?notReady=", "/api/v1/objects"]) {
    const plain = await rawGet(`${base}${path}`, {});
    assert.equal(plain.headers["content-encoding"], undefined, path);
    assert.ok(plain.body.length > 1024, `${path}: ${plain.body.length} bytes, too small to test`);
    const gzipped = await rawGet(`${base}${path}`, { "Accept-Encoding": "gzip, deflate, br" });
    assert.equal(gzipped.headers["content-encoding"], "gzip", path);
    assert.match(String(gzipped.headers.vary), /Accept-Encoding/, path);
    assert.equal(gzipped.headers["content-type"], plain.headers["content-type"], path);
    assert.ok(
      gzipped.body.length < plain.body.length / 2,
      `${path}: ${gzipped.body.length} of ${plain.body.length}`,
    );
    // The test source's clock is fixed, so both answers are the same bytes before compression.
    assert.equal(gunzipSync(gzipped.body).toString(), plain.body.toString(), path);
  }
  const refused = await rawGet(`${base}/api/v1/objects`, { "Accept-Encoding": "gzip;q=0, identity" });
  assert.equal(refused.headers["content-encoding"], undefined);
  const small = await rawGet(`${base}/api/v1/objects/no-such-uid`, { "Accept-Encoding": "gzip" });
  assert.equal(small.headers["content-encoding"], undefined);
  assert.match(small.body.toString(), /no object with uid/);
});
