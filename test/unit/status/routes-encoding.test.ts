// The status routes' edges (src/server/status-routes.ts): where compression
// starts, an identity preference, a query parameter without a value on an
// object's path, an explicit attention filter on the page, and the page's
// summary counting every object.
import assert from "node:assert/strict";
import { get } from "node:http";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { statusFleet } from "../../support/status-fleet.ts";
import { serveStatus } from "../../support/status-server.ts";
import { condition, fixedSource, view } from "../../support/views.ts";

function rawGet(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      get(url, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (c: Buffer) => chunks.push(c));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
      }).once("error", reject);
    },
  );
}

test("answers of 1024 bytes and more are gzipped, 1023 and fewer are not", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  // A 404 names its path: its length sets the body's.
  const one = await rawGet(`${base}/api/x`);
  assert.equal(one.status, 404);
  const pathFor = (bytes: number) => `/api/${"x".repeat(bytes - one.body.length + 1)}`;
  for (const bytes of [1023, 1024]) {
    const plain = await rawGet(`${base}${pathFor(bytes)}`);
    assert.equal(plain.body.length, bytes);
    const asked = await rawGet(`${base}${pathFor(bytes)}`, { "Accept-Encoding": "gzip" });
    assert.equal(asked.headers["content-encoding"], bytes >= 1024 ? "gzip" : undefined, String(bytes));
    const body = bytes >= 1024 ? gunzipSync(asked.body) : asked.body;
    assert.equal(body.toString(), plain.body.toString());
  }
});

test("a client preferring identity to gzip gets the answer uncompressed", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  const answer = await rawGet(`${base}/api/v1/objects`, { "Accept-Encoding": "identity, gzip;q=0.5" });
  assert.equal(answer.headers["content-encoding"], undefined);
  assert.ok(answer.body.length > 1024);
  assert.equal(JSON.parse(answer.body.toString()).total, statusFleet().length);
});

test("an object's path with a query parameter without a value: the parameter named, its value empty", async (t) => {
  const base = await serveStatus(t, fixedSource(statusFleet()));
  const answer = await rawGet(`${base}/api/v1/objects/uid-shop-stuck-widget?verbose`);
  assert.equal(answer.status, 400);
  const error = JSON.parse(answer.body.toString()).error;
  assert.deepEqual([error.parameter, error.value], ["verbose", ""]);
});

/** The names of the objects listed on the page, and the page's HTML. */
async function page(base: string, query: string) {
  const html = (await rawGet(`${base}/${query}`)).body.toString();
  const names = [...html.matchAll(/<th scope="row">([^<]+)<\/th>/g)].map((m) => m[1] ?? "").sort();
  return { html, names };
}

test("the page: an explicit attention filter without show is kept, not replaced by the default", async (t) => {
  const fleet = [
    view({ name: "fine-widget" }),
    view({ name: "down-widget", result: "Failed", ready: condition("Ready", "False") }),
  ];
  const base = await serveStatus(t, fixedSource(fleet));
  assert.deepEqual((await page(base, "?attention=false")).names, ["fine-widget"]);
  assert.deepEqual((await page(base, "?attention=true")).names, ["down-widget"]);
});

test("the page's summary counts every object, whatever the list shows", async (t) => {
  const fleet = [
    view({ name: "fine-widget" }),
    view({ name: "other-widget" }),
    view({ name: "down-widget", result: "Failed", ready: condition("Ready", "False") }),
  ];
  const base = await serveStatus(t, fixedSource(fleet));
  const { html } = await page(base, "");
  assert.match(html, />3<span class="sr-only"> Widget objects<\/span>/);
});
